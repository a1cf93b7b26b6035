"""Mellowmax policy (``chainerrl.policies.mellowmax_policy``)."""

from __future__ import annotations

from typing import Any

import kusari
from kusari_rl.distribution import MellowmaxDistribution
from kusari_rl.policy import Policy

__all__ = ["MellowmaxPolicy"]


class MellowmaxPolicy(kusari.Chain, Policy):
    """Maximum-entropy mellowmax policy over the values ``model`` computes.

    Args:
        model: Link mapping observations to ``(batch, n_actions)`` values.
        omega: Mellowmax's temperature.
    """

    def __init__(self, model: kusari.Link, omega: float = 1.0) -> None:
        super().__init__()
        self.omega = omega
        with self.init_scope():
            self.model = model

    def forward(self, x: Any) -> MellowmaxDistribution:
        return MellowmaxDistribution(self.model(x), omega=self.omega)
