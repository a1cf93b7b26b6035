"""Public names of kusari.functions.rnn (re-exported by kusari.functions)."""

from kusari.functions.rnn.lstm import lstm
from kusari.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from kusari.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from kusari.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn
from kusari.functions.rnn.slstm import slstm
from kusari.functions.rnn.tree_lstm import tree_lstm

__all__ = [
    "lstm",
    "n_step_bigru",
    "n_step_bilstm",
    "n_step_birnn",
    "n_step_gru",
    "n_step_lstm",
    "n_step_rnn",
    "slstm",
    "tree_lstm",
]
