"""Softmax cross entropy: the standard classification loss."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend, configuration
from kusari._function_node_support import retained_input_array as _retained
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.functions.activation.log_softmax import _logsumexp
from kusari.utils import type_check
from kusari.variable import Variable


def _check_reduce(reduce: str) -> None:
    if reduce == "mean" or reduce == "no":
        return  # the check's import and call, saved on every step
    from kusari.functions.loss._helpers import check_reduce

    check_reduce("softmax_cross_entropy", reduce, ("mean", "no"))


_aranges: dict[int, Any] = {}


def _rows(n: int) -> Any:
    """A read-only ``numpy.arange(n)``, kept per ``n`` (a few batch sizes):
    the row index of the label gather, forward and backward."""
    r = _aranges.get(n)
    if r is None:
        if len(_aranges) >= 16:
            _aranges.clear()
        r = numpy.arange(n)
        r.flags.writeable = False
        _aranges[n] = r
    return r


def _to_2d(a: Any) -> Any:
    """(N, C, d1, ...) -> (N * d1 * ..., C) with the class axis last."""
    if a.ndim == 2:
        return a
    return (
        numpy.moveaxis(a, 1, -1).reshape(-1, a.shape[1])
        if isinstance(a, numpy.ndarray)
        else backend.get_array_module(a).moveaxis(a, 1, -1).reshape(-1, a.shape[1])
    )


def _check_class_weight(class_weight: Any, n_class: Any) -> None:
    """v7's checks of ``class_weight``: a 1-d float array (not a Variable:
    no gradient flows to it), one weight per class."""
    if isinstance(class_weight, Variable):
        raise ValueError(
            "softmax_cross_entropy: class_weight must be an ndarray, not a "
            "Variable (no gradient is computed for it); pass its .array"
        )
    if class_weight.ndim != 1 or class_weight.shape[0] != n_class:
        raise ValueError(
            f"softmax_cross_entropy: class_weight must have shape ({n_class},),"
            f" got {class_weight.shape}"
        )
    if class_weight.dtype.kind != "f":
        raise ValueError(
            "softmax_cross_entropy: class_weight must be a float array, got "
            f"dtype {class_weight.dtype}"
        )


def _check_labels(t1: Any, valid: Any, n_class: int, ignore_label: int) -> None:
    bad = valid & ((t1 < 0) | (t1 >= n_class))
    if bool(bad.any()):
        raise ValueError(
            "softmax_cross_entropy: labels must be in [0, "
            f"{n_class}) or equal ignore_label={ignore_label}; got "
            f"{t1[bad][:5].tolist()}"
        )


def _all_in_range(t1: Any, n_class: int, ignore_label: int) -> bool:
    """Whether every label is a class in ``[0, n_class)`` and none is ignored.

    Two reductions decide the common case; otherwise (or for no labels) the
    caller takes the general path, which checks and explains.
    """
    if t1.size == 0:
        return False
    lo = int(t1.min())
    hi = int(t1.max())
    return 0 <= lo and hi < n_class and not lo <= ignore_label <= hi


def _mean_coeff(xp: Any, valid: Any, normalize: bool, n: int, dtype: Any) -> Any:
    """1 / (number of valid labels, or the batch size); at least 1 below.

    On GPU it stays a device scalar, so the loss needs no host sync.
    """
    if not normalize:
        return 1.0 / max(n, 1)
    if xp is numpy:
        return 1.0 / max(int(valid.sum()), 1)
    return (1.0 / xp.maximum(valid.sum(), 1)).astype(dtype)


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

    @property
    def y(self) -> Any:
        """The softmax of ``x`` kept for backward, or None (v7's ``y``).

        Set only when ``cache_score`` is true and forward has run; it has
        ``x``'s shape, the class axis second.
        """
        log_p = getattr(self, "_log_p", None)
        if log_p is None:
            return None
        xp = backend.get_array_module(log_p)
        shape = self._x_shape
        p = xp.exp(log_p)
        if len(shape) != 2:
            p = xp.moveaxis(p.reshape((shape[0],) + shape[2:] + (shape[1],)), -1, 1)
        return p

    def check_type_forward(self, in_types: Any) -> None:
        if type(in_types) is type_check.LightTypeInfoTuple and len(in_types) == 2:
            # The common case decided with plain comparisons (light mode:
            # the arrays themselves); anything else takes the expectations.
            x, t = in_types
            if (
                type(x) is numpy.ndarray
                and type(t) is numpy.ndarray
                and x.dtype.kind == "f"
                and t.dtype.kind == "i"
                and t.ndim == x.ndim - 1
                and x.shape[0] == t.shape[0]
                and x.shape[2:] == t.shape[1:]
            ):
                return
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
        self._x_shape = x.shape
        x2 = _to_2d(x)
        t1 = t.reshape(-1)
        self.retain_inputs((0, 1))
        if (
            xp is numpy
            and self.class_weight is None
            and _all_in_range(t1, n_class, self.ignore_label)
        ):
            return self._forward_all_valid(x, x2, t1, t.shape)
        valid = t1 != self.ignore_label
        if xp is numpy or configuration.config.debug:
            # On GPU this check costs a host sync per call, so it runs in debug
            # mode only (as Chainer's); a bad label there gives a wrong loss.
            _check_labels(t1, valid, n_class, self.ignore_label)
        if xp is not numpy and x.dtype != numpy.float16:
            return self._forward_gpu(x2, t1, valid, t.shape, xp)
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
            self._coeff = _mean_coeff(xp, valid, self.normalize, x.shape[0], x.dtype)
            return (xp.asarray(losses.sum() * self._coeff, dtype=x.dtype),)
        return (losses.reshape(t.shape).astype(x.dtype, copy=False),)

    def _forward_all_valid(
        self, x: Any, x2: Any, t1: Any, t_shape: tuple[int, ...]
    ) -> tuple[Any, ...]:
        """The CPU forward when every label counts and no class is weighted.

        The general path's results (every weight is 1, and multiplying by 1
        is exact), without the mask, the weights and the label checks' half
        dozen array operations: on a classifier's small (N, C) scores those
        calls are most of the loss's time.
        """
        log_p = x2 - _logsumexp(x2, 1)
        losses = -log_p[_rows(len(t1)), t1]
        if self.cache_score:
            self._log_p = log_p
        self._weight = None
        self._idx = t1
        if self.reduce == "mean":
            n = len(t1) if self.normalize else x.shape[0]
            self._coeff = 1.0 / max(n, 1)
            return (numpy.asarray(losses.sum() * self._coeff, dtype=x.dtype),)
        return (losses.reshape(t_shape).astype(x.dtype, copy=False),)

    def _forward_gpu(
        self, x2: Any, t1: Any, valid: Any, t_shape: tuple[int, ...], xp: Any
    ) -> tuple[Any, ...]:
        # log-sum-exp as max + one reduction, then each row's loss read straight
        # from x: about half the kernels of the generic path, no (N, C) temporaries.
        x2 = xp.ascontiguousarray(x2)
        n_class = x2.shape[1]
        m = x2.max(axis=1, keepdims=True)
        sum_exp = cuda.reduce(
            "T x, T m", "T s", "exp(x - m)", "a + b", "s = a", "0", "kusari_sce_sumexp"
        )(x2, m, axis=1, keepdims=True)
        log_z = m + xp.log(sum_exp)
        weight = valid.astype(x2.dtype)
        if self.class_weight is not None:
            idx = xp.where(valid, t1, 0)
            weight *= self.class_weight[idx].astype(x2.dtype)
        losses = cuda.elementwise(
            "raw T x, T log_z, S t, T w, int32 n_class",
            "T loss",
            "loss = (w == (T)0 || t < 0 || t >= n_class) ? (T)0"
            " : w * (log_z - x[i * n_class + t])",
            "kusari_sce_fwd",
        )(x2, log_z[:, 0], t1, weight, n_class)
        self._log_z, self._weight = log_z, weight
        if self.reduce == "mean":
            self._coeff = _mean_coeff(xp, valid, self.normalize, t_shape[0], x2.dtype)
            return (xp.asarray(losses.sum() * self._coeff, dtype=x2.dtype),)
        return (losses.reshape(t_shape),)

    def _grad_scale(self, gy: Any) -> Any:
        weight = self._weight
        if self.reduce == "mean":
            scale = gy * self._coeff
            return scale if weight is None else weight * scale
        return gy.reshape(-1) if weight is None else weight * gy.reshape(-1)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, t = self.get_retained_inputs()
        gy = grad_outputs[0]
        gx = self._grad_x(x.array, t.array, gy.array)
        (gx_var,) = _SoftmaxCrossEntropyGradNoDoubleBackprop(gx).apply((x, gy))
        return gx_var, None

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # First-order backprop on arrays: the gradient of backward, without
        # the node that only exists to refuse a second differentiation.
        gx = self._grad_x(_retained(self, 0), _retained(self, 1), grad_outputs[0])
        return tuple([gx if i == 0 else None for i in indexes])

    def _grad_x(self, x_arr: Any, t_arr: Any, gy: Any) -> Any:
        """The gradient array of the scores ``x`` for output gradient ``gy``."""
        xp = backend.get_array_module(x_arr)
        x2 = _to_2d(x_arr)
        log_z = getattr(self, "_log_z", None)
        if log_z is not None:  # the GPU forward ran
            scale = self._grad_scale(gy).astype(x2.dtype, copy=False)
            g2 = cuda.elementwise(
                "T x, T log_z, S t, T c, int32 n_class",
                "T gx",
                "gx = c * (exp(x - log_z) - (i % n_class == t ? (T)1 : (T)0))",
                "kusari_sce_bwd",
            )(x2, log_z, t_arr.reshape(-1, 1), scale[:, None], x2.shape[1])
            return self._finish_grad(g2, x_arr, xp)
        log_p = getattr(self, "_log_p", None)
        if log_p is None:
            log_p = x2 - _logsumexp(x2, 1)
        p = xp.exp(log_p)
        rows = _rows(len(self._idx)) if xp is numpy else xp.arange(len(self._idx))
        p[rows, self._idx] -= 1
        scale = self._grad_scale(gy)
        if scale.ndim:
            scale = scale[:, None]
        # p is this call's own array: scaled in place (the same products).
        p *= scale.astype(p.dtype, copy=False)
        return self._finish_grad(p, x_arr, xp)

    @staticmethod
    def _finish_grad(g2: Any, x_arr: Any, xp: Any) -> Any:
        if x_arr.ndim != 2:
            shape = (x_arr.shape[0],) + x_arr.shape[2:] + (x_arr.shape[1],)
            g2 = xp.moveaxis(g2.reshape(shape), -1, 1)
        return xp.ascontiguousarray(g2, dtype=x_arr.dtype)


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
    if xp is numpy or configuration.config.debug:
        _check_labels(t1, valid, n_class, ignore_label)
    idx = xp.where(valid, t1, 0)
    picked = get_item(log_p, (xp.arange(len(t1)), idx))
    weight = valid.astype(x.dtype)
    if class_weight is not None:
        weight = weight * class_weight[idx].astype(x.dtype)
    losses = -picked * weight
    if reduce == "mean":
        return _sum(losses) * _mean_coeff(xp, valid, normalize, x.shape[0], x.dtype)
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
    if class_weight is not None and t_arr.dtype.kind != "f":
        # v7 checks the weights first, before x and t are looked at.
        _check_class_weight(class_weight, x_arr.shape[1])
    if t_arr.dtype.kind == "f":
        if t_arr.shape != x_arr.shape:
            # Float labels of the hard-label shape are the common mistake.
            expect = "t.shape == x.shape (soft targets)"
            actual = f"{t_arr.shape} != {x_arr.shape}"
            raise type_check.InvalidType(
                expect,
                actual,
                f"Expect: {expect}\nActual: {actual}\n"
                "softmax_cross_entropy: a float t is read as soft targets (one "
                "probability per class, shaped like x); class labels must be "
                f"integers, e.g. t.astype(numpy.int32) (t is {t_arr.dtype})",
            )
        return _soft_target_loss(x, t, reduce, soft_target_loss)
    if enable_double_backprop:
        return _double_backprop_sce(x, t, normalize, class_weight, ignore_label, reduce)
    return SoftmaxCrossEntropy(
        normalize, cache_score, class_weight, ignore_label, reduce
    ).apply((x, t))[0]
