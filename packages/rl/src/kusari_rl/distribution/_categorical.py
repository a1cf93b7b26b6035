"""Distributions over discrete actions: softmax and mellowmax."""

from __future__ import annotations

import functools
from abc import abstractmethod
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari import backend
from kusari.variable import Variable
from kusari_rl.distribution._base import Distribution, unwrap, wrap
from kusari_rl.functions.mellowmax import maximum_entropy_mellowmax

__all__ = ["CategoricalDistribution", "MellowmaxDistribution", "SoftmaxDistribution"]


def _sample_categorical(probs: Any) -> Any:
    """One index per row of ``probs`` (batch, n), vectorised by inverse CDF."""
    xp = backend.get_array_module(probs)
    cdf = xp.cumsum(probs, axis=1)
    u = xp.random.uniform(0.0, 1.0, size=(probs.shape[0], 1)) * cdf[:, -1:]
    idx = (cdf <= u).sum(axis=1)
    # Rounding can leave u at the very top of the CDF: stay in range.
    return xp.minimum(idx, probs.shape[1] - 1).astype(numpy.int32)


class CategoricalDistribution(Distribution):
    """Distribution over ``n`` discrete actions given by ``all_prob``."""

    @property
    @abstractmethod
    def all_prob(self) -> Variable:
        """Probabilities of every action, shape ``(batch, n_actions)``."""

    @property
    @abstractmethod
    def all_log_prob(self) -> Variable:
        """Log probabilities of every action, shape ``(batch, n_actions)``."""

    @functools.cached_property
    def entropy(self) -> Variable:
        with kusari.force_backprop_mode():
            return -F.sum(self.all_prob * self.all_log_prob, axis=1)

    @functools.cached_property
    def most_probable(self) -> Variable:
        probs = self.all_prob.array
        xp = backend.get_array_module(probs)
        return Variable(xp.argmax(probs, axis=1).astype(numpy.int32))

    def sample(self) -> Variable:
        return Variable(_sample_categorical(self._prob_array()))

    def _prob_array(self) -> Any:
        return self.all_prob.array

    def prob(self, x: Any) -> Variable:
        return F.select_item(self.all_prob, self._indices(x))

    def log_prob(self, x: Any) -> Variable:
        return F.select_item(self.all_log_prob, self._indices(x))

    def _indices(self, x: Any) -> Any:
        x = unwrap(x)
        xp = backend.get_array_module(x)
        return xp.asarray(x).astype(numpy.int32, copy=False)

    def kl(self, distrib: Distribution) -> Variable:
        if not isinstance(distrib, CategoricalDistribution):
            raise TypeError(
                f"{type(self).__name__}.kl: expected a CategoricalDistribution, "
                f"got {type(distrib).__name__}"
            )
        return F.sum(self.all_prob * (self.all_log_prob - distrib.all_log_prob), axis=1)


class SoftmaxDistribution(CategoricalDistribution):
    """Softmax (Boltzmann) distribution over logits.

    Args:
        logits: ``(batch, n_actions)`` logits (Variable or array).
        beta: Inverse temperature applied to ``logits``.
        min_prob: Floor on every action's probability; the softmax is scaled
            by ``1 - n_actions * min_prob`` so that the result still sums to 1.

    Example:
        >>> import numpy as np
        >>> d = SoftmaxDistribution(np.array([[0.0, 0.0]], np.float32))
        >>> d.all_prob.array
        array([[0.5, 0.5]], dtype=float32)
    """

    def __init__(self, logits: Any, beta: float = 1.0, min_prob: float = 0.0) -> None:
        self.logits = wrap(logits)
        self.beta = beta
        self.min_prob = min_prob
        n_actions = self.logits.shape[1]
        if min_prob < 0 or min_prob * n_actions > 1:
            raise ValueError(
                "SoftmaxDistribution: min_prob must be in [0, 1/n_actions] "
                f"= [0, {1 / n_actions}], got {min_prob}"
            )

    @property
    def params(self) -> tuple[Variable, ...]:
        return (self.logits,)

    def _scaled_logits(self) -> Variable:
        return self.logits if self.beta == 1.0 else self.beta * self.logits

    @functools.cached_property
    def all_prob(self) -> Variable:
        with kusari.force_backprop_mode():
            p = F.softmax(self._scaled_logits())
            if self.min_prob > 0:
                n = self.logits.shape[1]
                p = p * (1 - self.min_prob * n) + self.min_prob
            return p

    @functools.cached_property
    def all_log_prob(self) -> Variable:
        with kusari.force_backprop_mode():
            if self.min_prob > 0:
                return F.log(self.all_prob)
            return F.log_softmax(self._scaled_logits())

    def _prob_array(self) -> Any:
        # Acting only needs the probabilities as an array: skip the graph.
        if "all_prob" in self.__dict__ or self.min_prob > 0:
            return self.all_prob.array
        z = self.logits.array * self.beta
        xp = backend.get_array_module(z)
        e = xp.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def sample_arrays(self, with_entropy: bool = True) -> tuple[Any, Any, Any]:
        probs = self._prob_array()
        xp = backend.get_array_module(probs)
        action = _sample_categorical(probs)
        log_all = xp.log(xp.maximum(probs, numpy.finfo(probs.dtype).tiny))
        log_p = log_all[xp.arange(len(action)), action]
        ent = -(probs * log_all).sum(axis=1) if with_entropy else None
        return action, log_p, ent

    def copy(self) -> SoftmaxDistribution:
        return SoftmaxDistribution(
            self.logits.array.copy(), beta=self.beta, min_prob=self.min_prob
        )

    def __repr__(self) -> str:
        return (
            f"SoftmaxDistribution(beta={self.beta}, min_prob={self.min_prob}) "
            f"logits={self.logits.array}"
        )


class MellowmaxDistribution(CategoricalDistribution):
    """Maximum-entropy mellowmax policy over action values.

    See https://arxiv.org/abs/1612.05628.

    Args:
        values: ``(batch, n_actions)`` action values.
        omega: Mellowmax's temperature.
    """

    def __init__(self, values: Any, omega: float = 8.0) -> None:
        self.values = wrap(values)
        self.omega = omega

    @property
    def params(self) -> tuple[Variable, ...]:
        return (self.values,)

    @functools.cached_property
    def all_prob(self) -> Variable:
        with kusari.force_backprop_mode():
            return maximum_entropy_mellowmax(self.values, omega=self.omega)

    @functools.cached_property
    def all_log_prob(self) -> Variable:
        with kusari.force_backprop_mode():
            return F.log(self.all_prob)

    def copy(self) -> MellowmaxDistribution:
        return MellowmaxDistribution(self.values.array.copy(), omega=self.omega)

    def __repr__(self) -> str:
        return f"MellowmaxDistribution(omega={self.omega}) values={self.values.array}"
