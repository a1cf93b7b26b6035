"""Batches of action distributions returned by policies (``chainerrl.distribution``).

A policy maps a batch of observations to one of these objects. Every quantity
that a loss needs (``log_prob``, ``entropy``, ``kl``, ``prob``) is a kusari
Variable built from the distribution's parameters, so gradients flow back into
the policy. Sampling draws from the device's own random generator
(``xp.random``), so NumPy and CuPy parameters both work.

Derived quantities are cached on first use (``functools.cached_property``) and
computed under ``force_backprop_mode`` so that a value first read inside
``no_backprop_mode`` (while acting) is still differentiable when a loss reads it
again later.
"""

from kusari_rl.distribution._base import Distribution
from kusari_rl.distribution._categorical import (
    CategoricalDistribution,
    MellowmaxDistribution,
    SoftmaxDistribution,
)
from kusari_rl.distribution._continuous import (
    ContinuousDeterministicDistribution,
    GaussianDistribution,
    SquashedGaussianDistribution,
)

__all__ = [
    "CategoricalDistribution",
    "ContinuousDeterministicDistribution",
    "Distribution",
    "GaussianDistribution",
    "MellowmaxDistribution",
    "SoftmaxDistribution",
    "SquashedGaussianDistribution",
]
