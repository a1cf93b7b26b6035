"""The distribution interface and helpers shared by the concrete families."""

from __future__ import annotations

import math
from abc import ABCMeta, abstractmethod
from typing import Any

import kusari
from kusari.variable import Variable

__all__ = ["LOG_2", "LOG_2PI", "Distribution", "unwrap", "wrap"]

LOG_2PI = math.log(2 * math.pi)
LOG_2 = math.log(2.0)


def wrap(x: Any) -> Variable:
    """``x`` as a Variable (arrays are wrapped, Variables kept)."""
    return x if isinstance(x, Variable) else Variable(x)


def unwrap(x: Any) -> Any:
    """The array of ``x`` (a Variable or an array)."""
    return x.array if isinstance(x, Variable) else x


class Distribution(metaclass=ABCMeta):
    """A batch of probability distributions over actions.

    The first axis of every parameter is the batch axis; ``log_prob``,
    ``prob``, ``entropy`` and ``kl`` return one value per batch element.
    """

    @property
    @abstractmethod
    def entropy(self) -> Variable:
        """Entropy of each distribution, shape ``(batch,)``."""

    @abstractmethod
    def sample(self) -> Variable:
        """Draw one sample from each distribution."""

    @abstractmethod
    def prob(self, x: Any) -> Variable:
        """``p(x)`` for a batch of samples ``x``."""

    @abstractmethod
    def log_prob(self, x: Any) -> Variable:
        """``log p(x)`` for a batch of samples ``x``."""

    @abstractmethod
    def copy(self) -> Distribution:
        """A copy that does not share the computational graph (for old policies)."""

    @property
    @abstractmethod
    def most_probable(self) -> Variable:
        """The mode of each distribution (the greedy action)."""

    @property
    @abstractmethod
    def params(self) -> tuple[Variable, ...]:
        """The Variables this distribution is computed from."""

    @abstractmethod
    def kl(self, distrib: Distribution) -> Variable:
        """``KL(self || distrib)`` per batch element."""

    def sample_with_log_prob(self) -> tuple[Variable, Variable]:
        """Draw a sample and return it with its log probability."""
        x = self.sample()
        return x, self.log_prob(x)

    def sample_arrays(self, with_entropy: bool = True) -> tuple[Any, Any, Any]:
        """Sample for acting: ``(action, log_prob, entropy or None)`` as arrays.

        No computational graph is built; agents call this on every step, so
        the common distributions override it with plain array arithmetic.
        """
        with kusari.no_backprop_mode():
            x = self.sample().array
            log_p = self.log_prob(x).array
            ent = self.entropy.array if with_entropy else None
        return x, log_p, ent
