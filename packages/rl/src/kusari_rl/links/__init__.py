"""Network building blocks (``chainerrl.links``)."""

from kusari_rl.links.branched import Branched
from kusari_rl.links.dqn_head import NatureDQNHead, NIPSDQNHead
from kusari_rl.links.empirical_normalization import EmpiricalNormalization
from kusari_rl.links.mlp import MLP, MLPBN
from kusari_rl.links.noisy_linear import FactorizedNoisyLinear, to_factorized_noisy
from kusari_rl.links.sequence import Sequence
from kusari_rl.links.stateless_recurrent import (
    StatelessRecurrent,
    StatelessRecurrentChainList,
    concatenate_recurrent_states,
    get_recurrent_state_at,
    is_recurrent_link,
    mask_recurrent_state_at,
)
from kusari_rl.links.stateless_recurrent_branched import StatelessRecurrentBranched
from kusari_rl.links.stateless_recurrent_sequential import (
    StatelessRecurrentSequential,
)

__all__ = [
    "MLP",
    "MLPBN",
    "Branched",
    "EmpiricalNormalization",
    "FactorizedNoisyLinear",
    "NIPSDQNHead",
    "NatureDQNHead",
    "Sequence",
    "StatelessRecurrent",
    "StatelessRecurrentBranched",
    "StatelessRecurrentChainList",
    "StatelessRecurrentSequential",
    "concatenate_recurrent_states",
    "get_recurrent_state_at",
    "is_recurrent_link",
    "mask_recurrent_state_at",
    "to_factorized_noisy",
]
