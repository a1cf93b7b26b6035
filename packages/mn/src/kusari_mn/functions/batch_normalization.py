"""Batch normalization whose statistics cover the batches of all ranks.

With small per-rank batches, normalizing by each rank's own statistics is
noisy; here the per-channel sum, sum of squares and count of every rank are
added with one Allreduce in forward (and the two gradient sums with one in
backward), so the result equals batch normalization of the concatenated
global batch.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import FunctionNode, backend
from kusari_mn.functions._utility import as_variables


def _reduce_axes(ndim: int) -> tuple[int, ...]:
    return (0, *range(2, ndim))


def _channel_shape(ndim: int, channels: int) -> tuple[int, ...]:
    return (1, channels) + (1,) * (ndim - 2)


class MultiNodeBatchNormalizationFunction(FunctionNode):
    """Forward/backward of multi-node batch normalization (train mode)."""

    def __init__(
        self,
        comm: Any,
        eps: float = 2e-5,
        mean: Any = None,
        var: Any = None,
        decay: float = 0.9,
    ) -> None:
        self.comm = comm
        self.eps = eps
        self.running_mean = mean
        self.running_var = var
        self.decay = decay

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gamma, beta = inputs
        if x.ndim < 2 or gamma.shape != (x.shape[1],):
            raise ValueError(
                "multi_node_batch_normalization: expected x of shape (N, C, ...) "
                f"and gamma/beta of shape (C,), got x {x.shape} and gamma "
                f"{gamma.shape}"
            )
        xp = backend.get_array_module(x)
        axes = _reduce_axes(x.ndim)
        cshape = _channel_shape(x.ndim, x.shape[1])
        acc = numpy.float64 if x.dtype == numpy.float64 else numpy.float32
        xa = x.astype(acc, copy=False)
        local = xp.concatenate(
            [
                xa.sum(axis=axes),
                (xa * xa).sum(axis=axes),
                xp.asarray([x.size // x.shape[1]], dtype=acc),
            ]
        )
        total = self.comm.allreduce(local)
        c = x.shape[1]
        m = float(total[-1])
        mean = total[:c] / m
        var = xp.maximum(total[c : 2 * c] / m - mean * mean, 0)
        inv_std = 1.0 / xp.sqrt(var + self.eps)
        xhat = (xa - mean.reshape(cshape)) * inv_std.reshape(cshape)
        y = gamma.astype(acc).reshape(cshape) * xhat + beta.astype(acc).reshape(cshape)
        self._xhat = xhat
        self._inv_std = inv_std
        self._count = m
        self._gamma = gamma
        if self.running_mean is not None:
            d = self.decay
            unbiased = var * (m / max(m - 1.0, 1.0))
            self.running_mean *= d
            self.running_mean += (1 - d) * mean.astype(self.running_mean.dtype)
            self.running_var *= d
            self.running_var += (1 - d) * unbiased.astype(self.running_var.dtype)
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        g = gy.array
        xhat = self._xhat
        xp = backend.get_array_module(g)
        axes = _reduce_axes(g.ndim)
        c = g.shape[1]
        cshape = _channel_shape(g.ndim, c)
        ga = g.astype(xhat.dtype, copy=False)
        gbeta = ga.sum(axis=axes)
        ggamma = (ga * xhat).sum(axis=axes)
        total = self.comm.allreduce(xp.concatenate([gbeta, ggamma]))
        gbeta_all, ggamma_all = total[:c], total[c:]
        gamma = self._gamma.astype(xhat.dtype)
        gx = (gamma * self._inv_std).reshape(cshape) * (
            ga
            - (xhat * ggamma_all.reshape(cshape) + gbeta_all.reshape(cshape))
            / self._count
        )
        dtype = self._gamma.dtype
        return as_variables(
            [
                gx.astype(g.dtype, copy=False),
                ggamma.astype(dtype, copy=False),
                gbeta.astype(dtype, copy=False),
            ]
        )


def multi_node_batch_normalization(
    x: Any,
    gamma: Any,
    beta: Any,
    comm: Any,
    eps: float = 2e-5,
    running_mean: Any = None,
    running_var: Any = None,
    decay: float = 0.9,
) -> Any:
    """Batch normalization with statistics over every rank's batch.

    The running averages, when given, are updated in place (the variance
    unbiased by ``m / (m - 1)`` with ``m`` the global batch count). Gradients
    of ``gamma``/``beta`` are this rank's share (the multi-node optimizer
    averages them); the gradient of ``x`` accounts for every rank.
    """
    return MultiNodeBatchNormalizationFunction(
        comm, eps, running_mean, running_var, decay
    ).apply((x, gamma, beta))[0]
