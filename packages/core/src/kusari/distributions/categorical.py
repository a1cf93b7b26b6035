"""Categorical distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import backend, distribution
from kusari.distributions import utils
from kusari.variable import Variable


class Categorical(distribution.Distribution):
    """Categorical distribution over ``{0, ..., K-1}``: ``P(x = i) = p_i``.

    Args:
        p: Probabilities, shape ``batch_shape + (K,)``. Either ``p`` or
            ``logit`` (not both) must be given.
        logit: Unnormalised log-probabilities :math:`\\log p + C`.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.Categorical(np.array([[0.2, 0.8]], np.float32))
        >>> d.sample((4,)).shape
        (4, 1)
    """

    def __init__(self, p: Any = None, logit: Any = None) -> None:
        name, value = utils.one_of(type(self).__name__, p=p, logit=logit)
        self._given = name
        if name == "p":
            self.p = utils.param(value, "p", type(self).__name__)
            self.log_p = utils.safe_log(self.p)
        else:
            self.logit = utils.param(value, "logit", type(self).__name__)
            self.log_p = F.log_softmax(self.logit, axis=-1)
            self.p = F.exp(self.log_p)
        if self.p.ndim < 1:
            raise ValueError(f"{type(self).__name__}: p must have at least one axis")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, Variable]:
        return {self._given: self.p if self._given == "p" else self.logit}

    def log_prob(self, x: Any) -> Variable:
        xa = x.array if isinstance(x, Variable) else x
        xp = backend.get_array_module(xa)
        xa = xp.asarray(xa).astype(xp.int32)
        k = self.p.shape[-1]
        full = tuple(xa.shape) + (k,)
        log_p = self.log_p
        if tuple(log_p.shape) != full:
            log_p = F.broadcast_to(log_p, full)
        flat = F.reshape(log_p, (-1, k))
        y = F.select_item(flat, xa.reshape(-1))
        return F.reshape(y, xa.shape)

    @property
    def entropy(self) -> Variable:
        return -F.sum(utils.xlogy(self.p, self.log_p), axis=-1)

    @property
    def support(self) -> str:
        return "{0, 1, ..., K-1}"

    def _sample_index(self, n: int) -> Any:
        xp = self.xp
        p = self.p.array
        cum = xp.cumsum(p, axis=-1)
        u = xp.random.uniform(size=(n,) + self.batch_shape + (1,)) * cum[..., -1:]
        idx = (cum < u).sum(axis=-1)
        return xp.minimum(idx, p.shape[-1] - 1).astype(xp.int32)

    def sample_n(self, n: int) -> Variable:
        return Variable(self._sample_index(n))


@distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Variable:
    return F.sum(utils.xlogy(p.p, p.log_p - q.log_p), axis=-1)
