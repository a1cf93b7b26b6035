"""Network building blocks (``chainerrl.links``)."""

from kusari_rl.links.dqn_head import NatureDQNHead, NIPSDQNHead
from kusari_rl.links.empirical_normalization import EmpiricalNormalization
from kusari_rl.links.mlp import MLP, MLPBN
from kusari_rl.links.noisy_linear import FactorizedNoisyLinear, to_factorized_noisy
from kusari_rl.links.sequence import Sequence

__all__ = [
    "MLP",
    "MLPBN",
    "EmpiricalNormalization",
    "FactorizedNoisyLinear",
    "NIPSDQNHead",
    "NatureDQNHead",
    "Sequence",
    "to_factorized_noisy",
]
