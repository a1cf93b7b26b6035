"""Batch renormalization."""

from __future__ import annotations

import warnings
from typing import Any

from kusari import backend
from kusari.configuration import config
from kusari.function_node import FunctionNode
from kusari.functions.normalization.batch_normalization import (
    BatchNormalizationGrad,
    bcast_shape,
    check_bn_types,
    compute_axis,
    fixed_batch_normalization,
    stat_dtype,
    update_running,
)
from kusari.utils import force_array
from kusari.variable import Variable


class BatchRenormalization(FunctionNode):
    """``gamma * (x_hat * r + d) + beta``; ``r``, ``d`` tie the batch to running stats.

    ``r = clip(std / running_std, 1 / rmax, rmax)`` and
    ``d = clip((mean - running_mean) / running_std, -dmax, dmax)`` are constants
    of the backward pass.
    """

    def __init__(
        self,
        rmax: float,
        dmax: float,
        eps: float = 2e-5,
        running_mean: Any = None,
        running_var: Any = None,
        decay: float = 0.9,
        update_statistics: bool = False,
    ) -> None:
        self.rmax = rmax
        self.dmax = dmax
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.update_statistics = update_statistics

    def check_type_forward(self, in_types: Any) -> None:
        check_bn_types(in_types, ("x", "gamma", "beta"), None, "batch_renormalization")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        axis = compute_axis(x.ndim, gamma.ndim, None, "batch_renormalization")
        bshape = bcast_shape(x.shape, axis)
        m = x.size // max(gamma.size, 1)
        cdt = stat_dtype(x.dtype, gamma.dtype)
        xc = x.astype(cdt, copy=False)
        mean = xc.mean(axis=axis)
        xm = xc - mean.reshape(bshape)
        var = (xm * xm).mean(axis=axis)
        std = xp.sqrt(var + cdt.type(self.eps))
        r_mean = self.running_mean.astype(cdt)
        r_var = self.running_var.astype(cdt)
        r_std = xp.sqrt(r_var + cdt.type(self.eps))
        r = xp.clip(std / r_std, 1.0 / self.rmax, self.rmax).astype(cdt, copy=False)
        d = xp.clip((mean - r_mean) / r_std, -self.dmax, self.dmax)
        d = d.astype(cdt, copy=False)
        inv_std = 1 / std
        x_hat = xm * inv_std.reshape(bshape)
        y = (x_hat * r.reshape(bshape) + d.reshape(bshape)) * gamma.astype(
            cdt, copy=False
        ).reshape(bshape) + beta.astype(cdt, copy=False).reshape(bshape)
        if self.update_statistics:
            update_running(
                self.running_mean, self.running_var, mean, var, self.decay, m
            )
        self.r, self.d = r, d
        self._axis, self._bshape, self._m = axis, bshape, m
        # Statistics only: the backward recomputes x_hat from the retained x.
        self.mean, self.inv_std = mean, inv_std
        return (force_array(y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        r = self.r.astype(gamma.dtype, copy=False)
        d = self.d.astype(gamma.dtype, copy=False)
        # Batch normalization's gradient with gamma * r as the scale.
        f = BatchNormalizationGrad(
            self._axis, self._bshape, self._m, self.mean, self.inv_std
        )
        gx, g_xhat, gbeta = f.apply((x, gamma * r, grad_outputs[0]))
        return gx, g_xhat * r + gbeta * d, gbeta


def batch_renormalization(
    x: Any,
    gamma: Any,
    beta: Any,
    rmax: float,
    dmax: float,
    eps: float = 2e-5,
    running_mean: Any = None,
    running_var: Any = None,
    decay: float = 0.9,
    update_statistics: bool = False,
) -> Variable:
    """Batch renormalization.

    Normalizes with the batch's statistics, then corrects towards the running
    ones: ``y = gamma * (x_hat * r + d) + beta`` with
    ``r = clip(sigma_batch / sigma_running, 1/rmax, rmax)`` and
    ``d = clip((mu_batch - mu_running) / sigma_running, -dmax, dmax)``.

    Args:
        x: Input of a float dtype.
        gamma: Scale, shaped as ``x.shape[1:1 + gamma.ndim]``.
        beta: Shift.
        rmax: Bound of ``r``.
        dmax: Bound of ``d``.
        eps: Added to the variances.
        running_mean: Running mean (required).
        running_var: Running variance (required).
        decay: Decay of the running averages.
        update_statistics: Update ``running_mean`` and ``running_var`` in place.

    Only for training mode (``config.train``); at test time use
    :func:`fixed_batch_normalization` with the running statistics.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[0.], [2.]], np.float32)
        >>> one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
        >>> y = F.batch_renormalization(x, one, zero, 1.0, 0.0, running_mean=one,
        ...                             running_var=one)
        >>> np.round(y.array, 3)
        array([[-1.],
               [ 1.]], dtype=float32)
    """
    if running_mean is None:
        raise TypeError("batch_renormalization: running_mean is required")
    if running_var is None:
        raise TypeError("batch_renormalization: running_var is required")
    if not config.train:
        raise RuntimeError(
            "batch_renormalization runs in training mode only (config.train is "
            "False); use fixed_batch_normalization with the running statistics"
        )
    return BatchRenormalization(
        rmax, dmax, eps, running_mean, running_var, decay, update_statistics
    ).apply((x, gamma, beta))[0]


def fixed_batch_renormalization(
    x: Any, gamma: Any, beta: Any, mean: Any, var: Any, eps: float = 2e-5
) -> Variable:
    """Deprecated alias of :func:`fixed_batch_normalization` (warns)."""
    warnings.warn(
        "fixed_batch_renormalization is deprecated; use "
        "fixed_batch_normalization instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return fixed_batch_normalization(x, gamma, beta, mean, var, eps)
