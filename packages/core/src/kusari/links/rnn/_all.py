"""Public names of kusari.links.rnn (re-exported by kusari.links)."""

from kusari.links.rnn.gru import GRU, StatefulGRU, StatelessGRU
from kusari.links.rnn.lstm import LSTM, StatelessLSTM
from kusari.links.rnn.mgu import StatefulMGU, StatelessMGU
from kusari.links.rnn.n_step_gru import NStepBiGRU, NStepGRU
from kusari.links.rnn.n_step_lstm import NStepBiLSTM, NStepLSTM
from kusari.links.rnn.n_step_rnn import (
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepRNNReLU,
    NStepRNNTanh,
)
from kusari.links.rnn.peephole import StatefulPeepholeLSTM
from kusari.links.rnn.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM
from kusari.links.rnn.zoneoutlstm import StatefulZoneoutLSTM

__all__ = [
    "ChildSumTreeLSTM",
    "GRU",
    "LSTM",
    "NStepBiGRU",
    "NStepBiLSTM",
    "NStepBiRNNReLU",
    "NStepBiRNNTanh",
    "NStepGRU",
    "NStepLSTM",
    "NStepRNNReLU",
    "NStepRNNTanh",
    "NaryTreeLSTM",
    "StatefulGRU",
    "StatefulMGU",
    "StatefulPeepholeLSTM",
    "StatefulZoneoutLSTM",
    "StatelessGRU",
    "StatelessLSTM",
    "StatelessMGU",
]
