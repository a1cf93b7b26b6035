"""The policy interface (``chainerrl.policy``)."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from typing import Any

from kusari_rl.distribution import Distribution

__all__ = ["Policy"]


class Policy(metaclass=ABCMeta):
    """Abstract policy: maps a batch of observations to a distribution.

    Concrete policies are also kusari Links (``Policy`` is mixed into a
    ``Chain``), so their parameters are trained and saved like any other.
    """

    @abstractmethod
    def __call__(self, x: Any) -> Distribution:
        """Evaluate the policy on a batch of observations ``x``.

        Returns:
            A :class:`~kusari_rl.distribution.Distribution` with one entry per
            observation.
        """
