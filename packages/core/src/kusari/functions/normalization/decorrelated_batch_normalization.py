"""Decorrelated (ZCA-whitening) batch normalization."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.configuration import config
from kusari.function_node import FunctionNode
from kusari.functions.array.broadcast import broadcast_to
from kusari.functions.array.reshape import reshape
from kusari.functions.array.transpose import transpose
from kusari.functions.math.matmul import matmul
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _to_groups(x: Any, groups: int) -> Any:
    """``(N, C, ...)`` -> ``(groups, C // groups, N * prod(...))`` (array)."""
    c = x.shape[1]
    perm = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(perm).reshape(groups, c // groups, -1)


def _from_groups(a: Any, x_shape: tuple[int, ...]) -> Any:
    n, c = x_shape[:2]
    perm = (1, 0) + tuple(range(2, len(x_shape)))
    return a.reshape((c, n) + tuple(x_shape[2:])).transpose(perm)


def _check_groups(groups: Any, fname: str) -> None:
    if not isinstance(groups, int) or isinstance(groups, bool) or groups <= 0:
        raise ValueError(f"{fname}: groups must be a positive int, got {groups!r}")


class DecorrelatedBatchNormalization(FunctionNode):
    """``y = Sigma^(-1/2) (x - mean)`` per group of ``C // groups`` channels.

    Each group of consecutive channels has its own mean and covariance, over
    the ``N * (spatial size)`` samples.
    """

    def __init__(
        self,
        groups: int = 16,
        eps: float = 2e-5,
        running_mean: Any = None,
        running_projection: Any = None,
        decay: float = 0.9,
    ) -> None:
        _check_groups(groups, "decorrelated_batch_normalization")
        self.groups = groups
        self.eps = eps
        self.running_mean = running_mean
        self.running_projection = running_projection
        self.decay = decay

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        (x_type,) = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim >= 2,
            x_type.shape[1] % self.groups == 0,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        cdt = "float32" if x.dtype.itemsize < 4 else x.dtype
        xc = _to_groups(x, self.groups).astype(cdt, copy=False)
        cg, m = xc.shape[1:]
        mean = xc.mean(axis=2)
        xm = xc - mean[:, :, None]
        cov = xm @ xm.transpose(0, 2, 1) / m + self.eps * xp.eye(cg, dtype=cdt)
        lam, u = xp.linalg.eigh(cov)
        s = xp.sqrt(lam)
        ut = u.transpose(0, 2, 1)
        proj = (u / s[:, None, :]) @ ut
        y = proj @ xm
        if self.running_mean is not None:
            self.running_mean *= self.decay
            self.running_mean += ((1 - self.decay) * mean).astype(
                self.running_mean.dtype, copy=False
            )
        if self.running_projection is not None:
            adjust = m / max(m - 1.0, 1.0)
            self.running_projection *= self.decay
            self.running_projection += ((1 - self.decay) * adjust * proj).astype(
                self.running_projection.dtype, copy=False
            )
        self.xm, self.proj, self.u, self.s = xm, proj, u, s
        return (force_array(_from_groups(y, x.shape), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # x is an input of the gradient node only to link it into the graph, so
        # that differentiating gx w.r.t. x raises instead of giving zero.
        (x,) = self.get_retained_inputs()
        f = DecorrelatedBatchNormalizationGrad(
            self.groups, self.xm, self.proj, self.u, self.s
        )
        return f.apply((x, grad_outputs[0]))


class DecorrelatedBatchNormalizationGrad(FunctionNode):
    """``(x, gy) -> gx`` of decorrelated batch normalization.

    With ``P = Sigma^(-1/2) = U diag(1/s) U^T`` (``s = sqrt(eigenvalues)``),
    ``dL/dSigma = U (L o (U^T (gy xm^T) U)) U^T`` where
    ``L_ij = -1 / (s_i s_j (s_i + s_j))`` (the divided difference of
    ``lambda^(-1/2)``); then ``gx`` collects ``P gy + 2 sym(dL/dSigma) xm / m``
    and subtracts its mean over the samples.
    """

    def __init__(self, groups: int, xm: Any, proj: Any, u: Any, s: Any) -> None:
        self.groups = groups
        self.xm, self.proj, self.u, self.s = xm, proj, u, s

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[1]
        xm, u, s = self.xm, self.u, self.s
        g = _to_groups(gy, self.groups).astype(xm.dtype, copy=False)
        m = xm.shape[2]
        si, sj = s[:, :, None], s[:, None, :]
        lmat = -1 / (si * sj * (si + sj))
        ut = u.transpose(0, 2, 1)
        gp = g @ xm.transpose(0, 2, 1)
        gsig = u @ (lmat * (ut @ gp @ u)) @ ut
        gsig = gsig + gsig.transpose(0, 2, 1)
        gx = self.proj @ g + gsig @ xm / m
        gx -= gx.mean(axis=2, keepdims=True)
        return (force_array(_from_groups(gx, gy.shape), gy.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        raise NotImplementedError(
            "decorrelated_batch_normalization: double backward is not supported "
            "(as in Chainer)"
        )


def decorrelated_batch_normalization(
    x: Any,
    *,
    groups: int = 16,
    eps: float = 2e-5,
    running_mean: Any = None,
    running_projection: Any = None,
    decay: float = 0.9,
) -> Variable:
    """Decorrelated batch normalization (ZCA whitening with batch statistics).

    Args:
        x: Input of shape ``(N, C, ...)``; ``groups`` must divide ``C``.
        groups: Number of groups of consecutive channels; each group's
            ``C // groups`` channels are whitened together with their own
            statistics.
        eps: Added to the covariances' diagonals.
        running_mean: ``(groups, C // groups)`` array updated in place (None:
            not tracked).
        running_projection: ``(groups, C // groups, C // groups)`` array
            updated in place.
        decay: Decay of the running averages.

    Returns:
        ~kusari.Variable: Output of ``x``'s shape and dtype, zero-mean and
        decorrelated.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.random.default_rng(0).normal(size=(100, 2)).astype(np.float32)
        >>> y = F.decorrelated_batch_normalization(x, groups=1).array
        >>> np.allclose(y.T @ y / 100, np.eye(2), atol=1e-3)
        True
    """
    return DecorrelatedBatchNormalization(
        groups, eps, running_mean, running_projection, decay
    ).apply((x,))[0]


def fixed_decorrelated_batch_normalization(
    x: Any, mean: Any, projection: Any, groups: int = 16
) -> Variable:
    """Decorrelated batch normalization with given statistics (inference mode).

    ``y = projection[g] @ (x - mean[g])`` on each group ``g`` of ``C // groups``
    consecutive channels; differentiable in ``x``, ``mean`` and ``projection``
    (double backprop too).

    Args:
        x: Input of shape ``(N, C, ...)``.
        mean: ``(groups, C // groups)`` means.
        projection: ``(groups, C // groups, C // groups)`` whitening matrices.
        groups: Number of channel groups.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[1., 3.]], np.float32)
        >>> p = np.array([[[2., 0.], [0., 1.]]], np.float32)
        >>> F.fixed_decorrelated_batch_normalization(x, np.ones((1, 2), np.float32), p,
        ...                                          groups=1).array
        array([[0., 2.]], dtype=float32)
    """
    fname = "fixed_decorrelated_batch_normalization"
    _check_groups(groups, fname)
    x_shape = tuple(x.shape)
    if len(x_shape) < 2 or x_shape[1] % groups:
        raise type_check.InvalidType(
            "x.ndim >= 2, x.shape[1] % groups == 0",
            f"x.shape={x_shape}, groups={groups}",
        )
    n, c = x_shape[:2]
    cg = c // groups
    # The dtype rule is a type check: off under config.type_check=False (as
    # on the numerical side of gradient_check), where float32 statistics
    # then meet a float64 x and the result is promoted.
    dtypes_differ = mean.dtype != x.dtype or projection.dtype != x.dtype
    if (
        mean.shape != (groups, cg)
        or projection.shape != (groups, cg, cg)
        or (dtypes_differ and config.type_check)
    ):
        raise type_check.InvalidType(
            "mean.shape == (groups, C // groups), "
            "projection.shape == (groups, C // groups, C // groups), "
            "mean.dtype == projection.dtype == x.dtype",
            f"x {x_shape} {x.dtype}, mean {mean.shape} {mean.dtype}, "
            f"projection {projection.shape} {projection.dtype}, groups={groups}",
        )
    perm = (1, 0) + tuple(range(2, len(x_shape)))
    xg = reshape(transpose(x, perm), (groups, cg, -1))
    xc = xg - broadcast_to(reshape(mean, (groups, cg, 1)), xg.shape)
    y = reshape(matmul(projection, xc), (c, n) + x_shape[2:])
    return transpose(y, perm)
