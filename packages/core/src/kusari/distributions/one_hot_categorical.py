"""One-hot categorical distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.distributions.categorical import Categorical
from kusari.variable import Variable


class OneHotCategorical(distribution.Distribution):
    """Categorical distribution whose events are one-hot vectors of length K.

    Args:
        p: Probabilities, shape ``batch_shape + (K,)``.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> d = D.OneHotCategorical(np.array([0., 1.], np.float32))
        >>> d.sample(2).array
        array([[0., 1.],
               [0., 1.]], dtype=float32)
    """

    def __init__(self, p: Any) -> None:
        self.p = utils.param(p, "p", "OneHotCategorical")
        if self.p.ndim < 1:
            raise ValueError("OneHotCategorical: p must have at least one axis")
        self.log_p = utils.safe_log(self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return tuple(self.p.shape[-1:])

    @property
    def params(self) -> dict[str, Variable]:
        return {"p": self.p}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.p.dtype)
        return F.sum(utils.xlogy(x, self.log_p), axis=-1)

    @property
    def entropy(self) -> Variable:
        return -F.sum(utils.xlogy(self.p, self.log_p), axis=-1)

    @property
    def mean(self) -> Variable:
        return self.p

    @property
    def variance(self) -> Variable:
        return self.p * (1.0 - self.p)

    @property
    def covariance(self) -> Variable:
        pp = F.expand_dims(self.p, -1) * F.expand_dims(self.p, -2)
        k = self.p.shape[-1]
        eye = self.xp.eye(k, dtype=self.p.dtype)
        return F.expand_dims(self.p, -1) * eye - pp

    @property
    def support(self) -> str:
        return "{0, 1}"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        idx = Categorical(self.p)._sample_index(n)
        eye = xp.eye(self.p.shape[-1], dtype=self.p.dtype)
        return Variable(eye[idx])


@distribution.register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Variable:
    return F.sum(utils.xlogy(p.p, p.log_p - q.log_p), axis=-1)
