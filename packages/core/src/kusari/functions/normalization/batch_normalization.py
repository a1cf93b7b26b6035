"""Batch normalization with batch statistics, and with fixed statistics."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.functions.array.broadcast import broadcast_to
from kusari.functions.array.cast import cast
from kusari.functions.array.reshape import reshape
from kusari.functions.math.sum import sum as _sum
from kusari.functions.normalization import _batch_normalization_cpu as _cpu
from kusari.functions.normalization._batch_normalization_cpu import bcast_shape
from kusari.utils import force_array, type_check
from kusari.variable import Variable

# -- helpers shared by the batch-normalization family ---------------------------


def compute_axis(
    x_ndim: int, gamma_ndim: int, axis: Any, fname: str
) -> tuple[int, ...]:
    """The normalized (reduced) axes: by default all but ``1 .. gamma.ndim``."""
    if axis is None:
        return (0,) + tuple(range(gamma_ndim + 1, x_ndim))
    if isinstance(axis, int) and not isinstance(axis, bool):
        axis = (axis,)
    if not (isinstance(axis, tuple) and all(isinstance(a, int) for a in axis)):
        raise TypeError(
            f"{fname}: axis must be None, an int or a tuple of ints, got {axis!r}"
        )
    out = tuple(a % x_ndim if -x_ndim <= a < x_ndim else a for a in axis)
    if any(not 0 <= a < x_ndim for a in out):
        raise ValueError(
            f"{fname}: axis {axis!r} is out of bounds for an input of ndim {x_ndim}"
        )
    if len(set(out)) != len(out) or list(out) != sorted(out):
        raise ValueError(f"{fname}: axis must be sorted and unique, got {axis!r}")
    return out


def warn_single_sample(axis: tuple[int, ...]) -> None:
    """Warn (as Chainer does) that statistics over one element make zeros."""
    if 0 in axis:
        what = (
            "a batch of at most one sample (in evaluation, is "
            "kusari.config.train still True? or is it the last, short batch "
            "of a non-repeating iterator?)"
        )
    else:
        what = "an input of size 1 along every axis its statistics are taken over"
    warnings.warn(
        f"F.batch_normalization was given {what}; it outputs zeros (beta) for "
        f"such an input (axes {axis})",
        UserWarning,
        stacklevel=4,
    )


def check_bn_types(
    in_types: Any, names: tuple[str, ...], axis: Any, fname: str
) -> None:
    """``x`` float; the others float, alike, shaped as ``x``'s non-reduced axes."""
    type_check._argname(in_types, names)
    x_type, gamma_type = in_types[0], in_types[1]
    type_check.expect(
        x_type.dtype.kind == "f",
        gamma_type.dtype.kind == "f",
        x_type.ndim >= gamma_type.ndim + 1,
    )
    for t in in_types[2:]:
        type_check.expect(t.dtype == gamma_type.dtype, t.shape == gamma_type.shape)
    x_ndim = type_check.eval(x_type.ndim)
    red = compute_axis(x_ndim, type_check.eval(gamma_type.ndim), axis, fname)
    key = [i for i in range(x_ndim) if i not in red]
    type_check.expect(gamma_type.ndim == len(key))
    for i, k in enumerate(key):
        type_check.expect(x_type.shape[k] == gamma_type.shape[i])


def stat_dtype(dtype: Any, param_dtype: Any = None) -> Any:
    """The dtype statistics are computed in: float16 inputs in float32, and
    with parameters of another dtype (mixed precision, as in Chainer 7) the
    promoted one (a float32 ``x`` with float64 ``gamma`` in float64)."""
    cdt = numpy.dtype(numpy.float32) if dtype == numpy.float16 else numpy.dtype(dtype)
    return cdt if param_dtype is None else numpy.promote_types(cdt, param_dtype)


def update_running(
    running_mean: Any, running_var: Any, mean: Any, var: Any, decay: float, m: int
) -> None:
    """Exponential moving averages, in place; the variance is made unbiased."""
    if running_mean is not None:
        running_mean *= decay
        running_mean += ((1 - decay) * mean).astype(running_mean.dtype, copy=False)
    if running_var is not None:
        adjust = m / max(m - 1.0, 1.0)
        running_var *= decay
        step = (1 - decay) * adjust * var
        running_var += step.astype(running_var.dtype, copy=False)


def as_dtype(v: Any, dtype: Any) -> Any:
    """``v`` cast to ``dtype`` (differentiably) unless it already has it."""
    return v if v is None or v.dtype == dtype else cast(v, dtype)


def _mean_keep(v: Variable, axis: tuple[int, ...], m: int) -> Variable:
    return _sum(v, axis=axis, keepdims=True) * (1.0 / m)


# -- batch statistics -------------------------------------------------------------


class BatchNormalization(FunctionNode):
    """``gamma * (x - mean) / sqrt(var + eps) + beta`` with the batch's mean and var."""

    def __init__(
        self,
        eps: float = 2e-5,
        running_mean: Any = None,
        running_var: Any = None,
        decay: float = 0.9,
        axis: Any = None,
    ) -> None:
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        check_bn_types(
            in_types, ("x", "gamma", "beta"), self.axis, "batch_normalization"
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        axis = compute_axis(x.ndim, gamma.ndim, self.axis, "batch_normalization")
        if all(x.shape[i] == 1 for i in axis):
            warn_single_sample(axis)
        bshape = bcast_shape(x.shape, axis)
        m = x.size // max(gamma.size, 1)
        cdt = stat_dtype(x.dtype, gamma.dtype)
        if xp is numpy:
            mean, var, inv_std, y = _cpu.forward(
                x, gamma, beta, axis, cdt, cdt.type(self.eps)
            )
        else:
            xc = x.astype(cdt, copy=False)
            mean = xc.mean(axis=axis)
            g = gamma.astype(cdt, copy=False).reshape(bshape)
            b = beta.astype(cdt, copy=False).reshape(bshape)
            # Normalisation, scale and shift in one kernel.
            var = xc.var(axis=axis)
            inv_std = 1 / xp.sqrt(var + cdt.type(self.eps))
            y = cuda.elementwise(
                "T x, C mean, C inv_std, C gamma, C beta",
                "T y",
                "C x_hat = ((C)x - mean) * inv_std; y = (T)(gamma * x_hat + beta)",
                "kusari_bn_fwd_y",
            )(x, mean.reshape(bshape), inv_std.reshape(bshape), g, b)
        update_running(self.running_mean, self.running_var, mean, var, self.decay, m)
        self._axis, self._bshape, self._m = axis, bshape, m
        # Only the per-channel statistics are kept: the backward recomputes
        # x_hat from the retained x, which the backward pass frees as soon as
        # x's creator has run. (A stored x_hat would double the activations
        # kept per layer and live as long as this node.)
        self.mean, self.inv_std = mean, inv_std
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, gamma = self.get_retained_inputs()
        f = BatchNormalizationGrad(
            self._axis, self._bshape, self._m, self.mean, self.inv_std
        )
        return f.apply((x, gamma, grad_outputs[0]))


class BatchNormalizationGrad(FunctionNode):
    """``(x, gamma, gy) -> (gx, ggamma, gbeta)`` of batch normalization, fused.

    With the per-channel ``mean`` and ``inv_std`` of the forward pass,
    ``x_hat = (x - mean) * inv_std`` (recomputed here, in the compute dtype of
    ``inv_std``) and ``m`` elements per channel::

        gbeta  = sum(gy)
        ggamma = sum(gy * x_hat)
        gx     = gamma * inv_std * (gy - (x_hat * ggamma + gbeta) / m)
    """

    def __init__(
        self,
        axis: tuple[int, ...],
        bshape: tuple[int, ...],
        m: int,
        mean: Any,
        inv_std: Any,
    ) -> None:
        self.axis = axis
        self.bshape = bshape
        self.m = m
        self.mean = mean
        self.inv_std = inv_std

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # x for the second-order terms (x_hat); kept only when this node is
        # recorded, i.e. in double backprop.
        self.retain_inputs((0, 1, 2))
        x, gamma, gy = inputs
        axis = self.axis
        cdt = self.inv_std.dtype
        if not isinstance(gy, numpy.ndarray):
            return self._forward_gpu(x, gamma, gy, cdt)
        gx, ggamma, gbeta = _cpu.backward(
            gy, x, gamma, self.mean, self.inv_std, axis, self.m
        )
        self.gbeta_mean = gbeta / self.m
        self.ggamma_mean = ggamma / self.m
        return (
            force_array(gx, x.dtype),
            force_array(ggamma, gamma.dtype),
            force_array(gbeta, gamma.dtype),
        )

    def _forward_gpu(self, x: Any, gamma: Any, gy: Any, cdt: Any) -> tuple[Any, ...]:
        # Both reductions read gy (and x) without a temporary; gx is one
        # more pass; x_hat is recomputed inside the kernels.
        axis, bshape = self.axis, self.bshape
        mean_b = self.mean.reshape(bshape)
        inv_b = self.inv_std.reshape(bshape)
        gbeta = gy.sum(axis=axis, dtype=cdt)
        ggamma = cuda.reduce(
            "T gy, T x, C mean, C inv_std",
            "C ggamma",
            "(C)gy * (((C)x - mean) * inv_std)",
            "a + b",
            "ggamma = a",
            "0",
            "kusari_bn_ggamma_x",
        )(gy, x, mean_b, inv_b, axis=axis)
        self.gbeta_mean = gbeta / self.m
        self.ggamma_mean = ggamma / self.m
        scale = gamma.astype(cdt, copy=False) * self.inv_std
        gx = cuda.elementwise(
            "T gy, T x, C mean, C inv_std, C scale, C ggamma_mean, C gbeta_mean",
            "T gx",
            "C x_hat = ((C)x - mean) * inv_std; "
            "gx = (T)(scale * ((C)gy - x_hat * ggamma_mean - gbeta_mean))",
            "kusari_bn_bwd_x",
        )(
            gy,
            x,
            mean_b,
            inv_b,
            scale.reshape(bshape),
            self.ggamma_mean.reshape(bshape),
            self.gbeta_mean.reshape(bshape),
        )
        return (
            gx,
            ggamma.astype(gamma.dtype, copy=False),
            gbeta.astype(gamma.dtype, copy=False),
        )

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # Exact second-order terms. Per channel (E = mean over the m elements,
        # a = E[gy x_hat], b = E[gy], P(v) = v - E[v] - x_hat E[x_hat v]):
        #   d/dgy    = gamma inv P(ggx) + gggamma x_hat + ggbeta
        #   d/dgamma = inv m E[ggx (gy - x_hat a - b)] = inv m q
        #   d/dx     = inv P(c) - gamma inv^2 q x_hat, with
        #              c = -gamma inv (E[ggx x_hat] gy + a ggx) + gggamma gy
        # x_hat and inv_std enter as arrays, so a third derivative would miss
        # their dependence on x.
        x_var, gamma, gy = self.get_retained_inputs()
        ggx, gggamma, ggbeta = grad_outputs
        axis, bshape, m = self.axis, self.bshape, self.m
        dt = gy.dtype
        # Everything is computed in x's dtype (gamma's may differ).
        g_dtype = gamma.dtype
        gamma = as_dtype(gamma, dt)
        gggamma = as_dtype(gggamma, dt)
        ggbeta = as_dtype(ggbeta, dt)
        xh = self._x_hat(x_var.array).astype(dt, copy=False)
        inv = self.inv_std.astype(dt, copy=False)
        inv_b = inv.reshape(bshape)
        a_b = self.ggamma_mean.astype(dt, copy=False).reshape(bshape)
        b_b = self.gbeta_mean.astype(dt, copy=False).reshape(bshape)
        gamma_b = reshape(gamma, bshape)

        g_x = g_gamma = g_gy = c = None
        if ggx is not None:
            e_ggx = _mean_keep(ggx, axis, m)
            e_ggx_xh = _mean_keep(ggx * xh, axis, m)
            g_gy = gamma_b * inv_b * (ggx - xh * e_ggx_xh - e_ggx)
            q = _mean_keep(ggx * (gy - xh * a_b - b_b), axis, m)
            g_gamma = reshape(q, gamma.shape) * (inv * m)
            c = -(gamma_b * inv_b) * (e_ggx_xh * gy + ggx * a_b)
            g_x = -(gamma_b * (inv_b * inv_b)) * q * xh
        if gggamma is not None:
            gg_b = reshape(gggamma, bshape)
            g_gy = gg_b * xh if g_gy is None else g_gy + gg_b * xh
            c = gg_b * gy if c is None else c + gg_b * gy
        if ggbeta is not None:
            gb_b = reshape(ggbeta, bshape)
            g_gy = gb_b if g_gy is None else g_gy + gb_b
        if c is not None:
            proj = c - _mean_keep(c, axis, m) - xh * _mean_keep(c * xh, axis, m)
            g_x = inv_b * proj if g_x is None else g_x + inv_b * proj
        if g_gy is not None and g_gy.shape != gy.shape:
            g_gy = broadcast_to(g_gy, gy.shape)
        return g_x, as_dtype(g_gamma, g_dtype), g_gy

    def _x_hat(self, x: Any) -> Any:
        """``(x - mean) * inv_std`` in the compute dtype of the statistics."""
        cdt = self.inv_std.dtype
        if isinstance(x, numpy.ndarray):
            return _cpu.x_hat_piece(x, self.mean, self.inv_std, cdt, self.bshape)
        xc = x.astype(cdt, copy=False)
        return (xc - self.mean.reshape(self.bshape)) * self.inv_std.reshape(self.bshape)


def batch_normalization(
    x: Any,
    gamma: Any,
    beta: Any,
    *,
    eps: float = 2e-5,
    running_mean: Any = None,
    running_var: Any = None,
    decay: float = 0.9,
    axis: Any = None,
) -> Variable:
    """Batch normalization with the statistics of the given batch.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``, where ``mean`` and
    ``var`` (the biased variance) are taken over ``axis``.

    Args:
        x: Input of a float dtype.
        gamma: Scale, shaped as ``x``'s non-normalized axes.
        beta: Shift, shaped as ``gamma``.
        eps: Added to the variance.
        running_mean: Array updated in place to
            ``decay * running_mean + (1 - decay) * mean`` (None: not tracked).
        running_var: Array updated in place likewise with the unbiased variance.
        decay: Decay of the running averages.
        axis: The normalized axes (int or sorted tuple); by default ``0`` and
            every axis after ``1 .. gamma.ndim``.

    Returns:
        ~kusari.Variable: Output of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[0.], [2.]], np.float32)
        >>> one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
        >>> y = F.batch_normalization(x, one, zero)
        >>> np.round(y.array, 3)
        array([[-1.],
               [ 1.]], dtype=float32)
    """
    return BatchNormalization(eps, running_mean, running_var, decay, axis).apply(
        (x, gamma, beta)
    )[0]


# -- fixed statistics ---------------------------------------------------------------


class FixedBatchNormalization(FunctionNode):
    """``gamma * (x - mean) / sqrt(var + eps) + beta``, ``mean`` and ``var`` given."""

    def __init__(self, eps: float = 2e-5, axis: Any = None) -> None:
        self.eps = eps
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        check_bn_types(
            in_types,
            ("x", "gamma", "beta", "mean", "var"),
            self.axis,
            "fixed_batch_normalization",
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 3, 4))
        x, gamma, beta, mean, var = inputs
        xp = backend.get_array_module(x)
        axis = compute_axis(x.ndim, gamma.ndim, self.axis, "fixed_batch_normalization")
        bshape = bcast_shape(x.shape, axis)
        cdt = stat_dtype(x.dtype, gamma.dtype)
        inv_std = 1 / xp.sqrt(var.astype(cdt, copy=False) + cdt.type(self.eps))
        scale = gamma.astype(cdt, copy=False) * inv_std
        shift = beta.astype(cdt, copy=False) - mean.astype(cdt, copy=False) * scale
        self._axis, self._bshape = axis, bshape
        if xp is not numpy:
            y = x.astype(cdt, copy=False) * scale.reshape(bshape)
            return (force_array(y + shift.reshape(bshape), x.dtype),)
        return (_cpu.fixed_forward(x, scale, shift, axis, cdt),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, gamma, mean, var = self.get_retained_inputs()
        (gy,) = grad_outputs
        # Computed in the parameters' dtype (x's may differ, e.g. float16).
        x_dtype = x.dtype
        x = as_dtype(x, gamma.dtype)
        gy = as_dtype(gy, gamma.dtype)
        axis, bshape = self._axis, self._bshape
        pshape = gamma.shape
        inv = (var + self.eps) ** -0.5
        gamma_b = reshape(gamma, bshape)
        inv_b = reshape(inv, bshape)
        xm = x - reshape(mean, bshape)
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(as_dtype(gy * (gamma_b * inv_b), x_dtype))
            elif i == 1:
                ret.append(reshape(_sum(gy * xm, axis=axis), pshape) * inv)
            elif i == 2:
                ret.append(reshape(_sum(gy, axis=axis), pshape))
            elif i == 3:
                ret.append(-reshape(_sum(gy, axis=axis), pshape) * gamma * inv)
            else:
                gsum = reshape(_sum(gy * xm, axis=axis), pshape)
                ret.append(gsum * gamma * (-0.5) * inv * inv * inv)
        return tuple(ret)


def fixed_batch_normalization(
    x: Any,
    gamma: Any,
    beta: Any,
    mean: Any,
    var: Any,
    eps: float = 2e-5,
    axis: Any = None,
) -> Variable:
    """Batch normalization with given statistics (inference mode).

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``; every input is
    differentiable.

    Args:
        x: Input of a float dtype.
        gamma: Scale, shaped as ``x``'s non-normalized axes.
        beta: Shift.
        mean: The mean to subtract.
        var: The variance to divide by (after adding ``eps``).
        eps: Added to ``var``.
        axis: The normalized axes, as in :func:`batch_normalization`.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
        >>> F.fixed_batch_normalization(np.array([[3.]], np.float32), one, zero,
        ...                             one, one * 4, eps=0.).array
        array([[1.]], dtype=float32)
    """
    return FixedBatchNormalization(eps, axis).apply((x, gamma, beta, mean, var))[0]
