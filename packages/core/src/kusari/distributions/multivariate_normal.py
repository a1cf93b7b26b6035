"""Multivariate normal distribution."""

from __future__ import annotations

from typing import Any

import kusari.functions as F
from kusari import distribution
from kusari.distributions import utils
from kusari.variable import Variable


def _tril_inv(L: Variable) -> Variable:
    """Inverse of a batch of (lower-triangular) matrices, any batch ndim."""
    d = L.shape[-1]
    shape = tuple(L.shape)
    if len(shape) == 2:
        return F.inv(L)
    return F.reshape(F.batch_inv(F.reshape(L, (-1, d, d))), shape)


def _triangular_inv(x: Any, lower: bool = True) -> Variable:
    """Inverse of one triangular matrix, reading only its ``lower`` triangle.

    The other triangle is masked out before inverting, so it has no effect on
    the result and gets a zero gradient, as when the matrix is solved as a
    triangular system (Chainer's ``_triangular_inv``, kept for its tests).
    """
    x = utils.as_data(x, None)
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise ValueError(
            f"_triangular_inv: expected a square 2-D matrix, got shape {tuple(x.shape)}"
        )
    xp = x.xp
    n = x.shape[0]
    mask = xp.tril(xp.ones((n, n), dtype=bool))
    if not lower:
        mask = mask.T
    return F.inv(F.where(mask, x, xp.zeros_like(x.array)))


def _matvec(A: Variable, v: Variable) -> Variable:
    """``A @ v`` over the last axes with broadcasting of the batch axes."""
    return F.sum(A * F.expand_dims(v, -2), axis=-1)


def _log_det_tril(L: Variable) -> Variable:
    return F.sum(F.log(F.diagonal(L, axis1=-2, axis2=-1)), axis=-1)


class MultivariateNormal(distribution.Distribution):
    """Multivariate normal ``N(loc, L L^T)`` given the Cholesky factor ``L``.

    Args:
        loc: Mean, shape ``batch_shape + (d,)``.
        scale_tril: Lower-triangular ``L`` with a positive diagonal, shape
            ``batch_shape + (d, d)``.

    Example:
        >>> import numpy as np
        >>> from kusari import distributions as D
        >>> L = np.eye(2, dtype=np.float32)
        >>> d = D.MultivariateNormal(np.zeros(2, np.float32), scale_tril=L)
        >>> d.event_shape, d.sample((3,)).shape
        ((2,), (3, 2))
    """

    def __init__(self, loc: Any, scale_tril: Any = None) -> None:
        self.loc = utils.param(loc, "loc", "MultivariateNormal")
        if scale_tril is None:
            raise ValueError("MultivariateNormal: scale_tril must have a value")
        self.scale_tril = utils.param(scale_tril, "scale_tril", "MultivariateNormal")
        if self.loc.ndim < 1:
            raise ValueError("MultivariateNormal: loc must have at least one axis")
        d = self.loc.shape[-1]
        if tuple(self.scale_tril.shape) != tuple(self.loc.shape) + (d,):
            raise ValueError(
                "MultivariateNormal: scale_tril must have shape loc.shape + (d,), "
                f"got loc {tuple(self.loc.shape)} and "
                f"scale_tril {tuple(self.scale_tril.shape)}"
            )
        self._inv_L: Variable | None = None

    @property
    def inv_scale_tril(self) -> Variable:
        if self._inv_L is None:
            self._inv_L = _tril_inv(self.scale_tril)
        return self._inv_L

    @property
    def d(self) -> int:
        return int(self.loc.shape[-1])

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape[:-1])

    @property
    def event_shape(self) -> tuple[int, ...]:
        return tuple(self.loc.shape[-1:])

    @property
    def params(self) -> dict[str, Variable]:
        return {"loc": self.loc, "scale_tril": self.scale_tril}

    def log_prob(self, x: Any) -> Variable:
        x = utils.as_data(x, self.loc.dtype)
        z = _matvec(self.inv_scale_tril, x - self.loc)
        return (
            -0.5 * F.sum(z * z, axis=-1)
            - _log_det_tril(self.scale_tril)
            - 0.5 * self.d * utils.LOG_2PI
        )

    @property
    def entropy(self) -> Variable:
        return _log_det_tril(self.scale_tril) + 0.5 * self.d * (1.0 + utils.LOG_2PI)

    @property
    def mean(self) -> Variable:
        return self.loc

    @property
    def mode(self) -> Variable:
        return self.loc

    @property
    def covariance(self) -> Variable:
        return F.matmul(self.scale_tril, self.scale_tril, transb=True)

    @property
    def variance(self) -> Variable:
        return F.sum(self.scale_tril * self.scale_tril, axis=-1)

    @property
    def support(self) -> str:
        return "real"

    def sample_n(self, n: int) -> Variable:
        xp = self.xp
        eps = xp.random.standard_normal((n,) + tuple(self.loc.shape)).astype(
            self.loc.dtype
        )
        return self.loc + _matvec(self.scale_tril, Variable(eps))


@distribution.register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Variable:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "kl_divergence(MultivariateNormal, MultivariateNormal): event shapes "
            f"differ: {p.event_shape} and {q.event_shape}"
        )
    inv_q = q.inv_scale_tril
    m = F.matmul(inv_q, p.scale_tril)
    z = _matvec(inv_q, q.loc - p.loc)
    return (
        0.5
        * (F.sum(F.sum(m * m, axis=-1), axis=-1) + F.sum(z * z, axis=-1) - float(p.d))
        + _log_det_tril(q.scale_tril)
        - _log_det_tril(p.scale_tril)
    )
