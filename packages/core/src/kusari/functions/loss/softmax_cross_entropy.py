"""Softmax cross entropy: the standard classification loss."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.log_softmax import _logsumexp
from kusari.utils import type_check
from kusari.variable import Variable


def _check_reduce(reduce: str) -> None:
    from kusari.functions.loss._helpers import check_reduce

    check_reduce("softmax_cross_entropy", reduce, ("mean", "no"))


def _to_2d(a: Any) -> Any:
    """(N, C, d1, ...) -> (N * d1 * ..., C) with the class axis last."""
    if a.ndim == 2:
        return a
    return (
        numpy.moveaxis(a, 1, -1).reshape(-1, a.shape[1])
        if isinstance(a, numpy.ndarray)
        else backend.get_array_module(a).moveaxis(a, 1, -1).reshape(-1, a.shape[1])
    )


class SoftmaxCrossEntropy(FunctionNode):
    """Fused softmax + negative log-likelihood for integer labels."""

    def __init__(
        self,
        normalize: bool = True,
        cache_score: bool = True,
        class_weight: Any = None,
        ignore_label: int = -1,
        reduce: str = "mean",
    ) -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x, t = in_types
        type_check.expect(
            x.dtype.kind == "f",
            t.dtype.kind == "i",
            t.ndim == x.ndim - 1,
            x.shape[0] == t.shape[0],
            x.shape[2:] == t.shape[1:],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t = inputs
        xp = backend.get_array_module(x)
        n_class = x.shape[1]
        x2 = _to_2d(x)
        t1 = t.reshape(-1)
        valid = t1 != self.ignore_label
        bad = valid & ((t1 < 0) | (t1 >= n_class))
        if bool(bad.any()):
            raise ValueError(
                "softmax_cross_entropy: labels must be in [0, "
                f"{n_class}) or equal ignore_label={self.ignore_label}; got "
                f"{t1[bad][:5].tolist()}"
            )
        self.retain_inputs((0, 1))
        log_z = _logsumexp(x2, 1)
        log_p = x2 - log_z
        idx = xp.where(valid, t1, 0)
        picked = log_p[xp.arange(len(t1)), idx]
        weight = valid.astype(x.dtype)
        if self.class_weight is not None:
            weight = weight * self.class_weight[idx].astype(x.dtype)
        losses = -picked * weight
        if self.cache_score:
            self._log_p = log_p
        self._valid = valid
        self._weight = weight
        self._idx = idx
        if self.reduce == "mean":
            if self.normalize:
                count = int(valid.sum())
            else:
                count = x.shape[0]
            self._coeff = 1.0 / max(count, 1)
            return (xp.asarray(losses.sum() * self._coeff, dtype=x.dtype),)
        return (losses.reshape(t.shape).astype(x.dtype, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, t = self.get_retained_inputs()
        x_arr = x.array
        xp = backend.get_array_module(x_arr)
        log_p = getattr(self, "_log_p", None)
        x2 = _to_2d(x_arr)
        if log_p is None:
            log_p = x2 - _logsumexp(x2, 1)
        p = xp.exp(log_p)
        p[xp.arange(len(self._idx)), self._idx] -= 1
        gy = grad_outputs[0].array
        if self.reduce == "mean":
            scale = self._weight * (gy * self._coeff)
        else:
            scale = self._weight * gy.reshape(-1)
        g2 = p * scale[:, None].astype(p.dtype, copy=False)
        if x_arr.ndim != 2:
            shape = (x_arr.shape[0],) + x_arr.shape[2:] + (x_arr.shape[1],)
            g2 = xp.moveaxis(g2.reshape(shape), -1, 1)
        gx = xp.ascontiguousarray(g2, dtype=x_arr.dtype)
        return _SoftmaxCrossEntropyGradNoDoubleBackprop(gx).apply((x, grad_outputs[0]))[
            0
        ], None


class _SoftmaxCrossEntropyGradNoDoubleBackprop(FunctionNode):
    """The precomputed gradient; differentiating it again raises (as in Chainer)."""

    def __init__(self, gx: Any) -> None:
        self._gx = gx

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx = self._gx
        del self._gx
        return (gx,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        raise RuntimeError(
            "F.softmax_cross_entropy was called with 'enable_double_backprop=False' "
            "argument, but double-backprop is actually being performed. Please "
            "specify 'enable_double_backprop=True' explicitly."
        )


def _double_backprop_sce(
    x: Any, t: Any, normalize: bool, class_weight: Any, ignore_label: int, reduce: str
) -> Variable:
    from kusari.functions.activation.log_softmax import log_softmax
    from kusari.functions.array.get_item import get_item
    from kusari.functions.array.reshape import reshape
    from kusari.functions.array.transpose import transpose
    from kusari.functions.math.sum import sum as _sum

    x = x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    t_arr = t.array if isinstance(t, Variable) else t
    xp = backend.get_array_module(x.array)
    n_class = x.shape[1]
    log_p = log_softmax(x, axis=1)
    if x.ndim != 2:
        axes = (0,) + tuple(range(2, x.ndim)) + (1,)
        log_p = reshape(transpose(log_p, axes), (-1, n_class))
    t1 = t_arr.reshape(-1)
    valid = t1 != ignore_label
    if bool((valid & ((t1 < 0) | (t1 >= n_class))).any()):
        raise ValueError(
            f"softmax_cross_entropy: labels must be in [0, {n_class}) or equal "
            f"ignore_label={ignore_label}"
        )
    idx = xp.where(valid, t1, 0)
    picked = get_item(log_p, (xp.arange(len(t1)), idx))
    weight = valid.astype(x.dtype)
    if class_weight is not None:
        weight = weight * class_weight[idx].astype(x.dtype)
    losses = -picked * weight
    if reduce == "mean":
        count = int(valid.sum()) if normalize else x.shape[0]
        return _sum(losses) * (1.0 / max(count, 1))
    return reshape(losses, t_arr.shape)


def _soft_target_loss(x: Any, t: Any, reduce: str, kind: str) -> Variable:
    from kusari.functions.activation.log_softmax import log_softmax
    from kusari.functions.math.sum import sum as _sum

    t_arr = t.array if isinstance(t, Variable) else t
    log_p = log_softmax(x, axis=1)
    if kind == "cross-entropy":
        losses = -_sum(log_p * t_arr, axis=1)
    elif kind == "kl-divergence":
        xp = backend.get_array_module(t_arr)
        log_t = xp.where(t_arr > 0, xp.log(xp.where(t_arr > 0, t_arr, 1)), 0)
        losses = _sum((log_t - log_p) * t_arr, axis=1)
    else:
        raise ValueError(
            "softmax_cross_entropy: soft_target_loss must be 'cross-entropy' or "
            f"'kl-divergence', got {kind!r}"
        )
    if reduce == "mean":
        # averaged over every (sample, position) pair, as Chainer does
        return _sum(losses) * (1.0 / max(losses.size, 1))
    return losses


def softmax_cross_entropy(
    x: Any,
    t: Any,
    normalize: bool = True,
    cache_score: bool = True,
    class_weight: Any = None,
    ignore_label: int = -1,
    reduce: str = "mean",
    enable_double_backprop: bool = False,
    soft_target_loss: str = "cross-entropy",
) -> Variable:
    """Cross entropy between ``softmax(x)`` and labels ``t``.

    Args:
        x: Scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: Integer labels of shape ``(N,)`` or ``(N, d1, ...)``, or soft
            targets (probabilities) of ``x``'s shape.
        normalize: Average over the non-ignored labels (else over ``N``).
        cache_score: Keep the softmax for backward (faster, more memory).
        class_weight: Optional per-class weights, shape ``(C,)``.
        ignore_label: Labels equal to this contribute nothing.
        reduce: ``'mean'`` for a scalar, ``'no'`` for one loss per label.
        enable_double_backprop: Build the loss from differentiable pieces so
            its gradient can be differentiated again.
        soft_target_loss: ``'cross-entropy'`` or ``'kl-divergence'`` for soft
            targets.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([[0., 0.]], np.float32)
        >>> round(float(F.softmax_cross_entropy(x, np.array([1])).array), 4)
        0.6931
    """
    _check_reduce(reduce)
    t_arr = t.array if isinstance(t, Variable) else t
    x_arr = x.array if isinstance(x, Variable) else x
    if t_arr.dtype.kind == "f":
        if t_arr.shape != x_arr.shape:
            raise type_check.InvalidType(
                "t.shape == x.shape (soft targets)", f"{t_arr.shape} != {x_arr.shape}"
            )
        return _soft_target_loss(x, t, reduce, soft_target_loss)
    if class_weight is not None:
        cw = class_weight.array if isinstance(class_weight, Variable) else class_weight
        if cw.ndim != 1 or cw.shape[0] != x_arr.shape[1]:
            raise ValueError(
                "softmax_cross_entropy: class_weight must have shape "
                f"({x_arr.shape[1]},),"
                f" got {cw.shape}"
            )
        class_weight = cw
    if enable_double_backprop:
        return _double_backprop_sce(x, t, normalize, class_weight, ignore_label, reduce)
    return SoftmaxCrossEntropy(
        normalize, cache_score, class_weight, ignore_label, reduce
    ).apply((x, t))[0]
