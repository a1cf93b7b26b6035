"""Explorers (``chainerrl.explorers``)."""

from kusari_rl.explorers.epsilon_greedy import (
    ConstantEpsilonGreedy,
    ExponentialDecayEpsilonGreedy,
    LinearDecayEpsilonGreedy,
)
from kusari_rl.explorers.other import AdditiveGaussian, AdditiveOU, Boltzmann, Greedy

__all__ = [
    "AdditiveGaussian",
    "AdditiveOU",
    "Boltzmann",
    "ConstantEpsilonGreedy",
    "ExponentialDecayEpsilonGreedy",
    "Greedy",
    "LinearDecayEpsilonGreedy",
]
