"""Gradient-based optimizers, each with its per-parameter update rule.

Example:
    >>> from kusari import optimizers
    >>> opt = optimizers.Adam(alpha=1e-3)
    >>> opt.alpha
    0.001
"""

from kusari.optimizers.ada_delta import AdaDelta
from kusari.optimizers.ada_grad import AdaGrad
from kusari.optimizers.adam import AdaBound, Adam, AdamW, AMSBound, AMSGrad
from kusari.optimizers.corrected_momentum_sgd import CorrectedMomentumSGD
from kusari.optimizers.momentum_sgd import MomentumSGD
from kusari.optimizers.msvag import MSVAG
from kusari.optimizers.nesterov_ag import NesterovAG
from kusari.optimizers.rmsprop import RMSprop
from kusari.optimizers.rmsprop_graves import RMSpropGraves
from kusari.optimizers.sgd import SGD
from kusari.optimizers.smorms3 import SMORMS3

__all__ = [
    "AMSBound",
    "AMSGrad",
    "AdaBound",
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "AdamW",
    "CorrectedMomentumSGD",
    "MSVAG",
    "MomentumSGD",
    "NesterovAG",
    "RMSprop",
    "RMSpropGraves",
    "SGD",
    "SMORMS3",
]
