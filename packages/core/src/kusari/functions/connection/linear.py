"""Fully connected layer: ``y = x W^T + b``.

``x`` and ``W`` may differ in float dtype (Chainer 7 accepts, e.g., a float16
``x`` with a float32 ``W``): the product is computed in the promoted dtype and
returned in ``x``'s; the bias has ``x``'s dtype; ``gx`` comes back in ``x``'s
dtype and ``gW`` in ``W``'s.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari._function_node_support import retained_input_array as _retained
from kusari.function_node import FunctionNode
from kusari.functions.math import _gemm_split
from kusari.utils import blas, force_array, threads, type_check
from kusari.variable import Variable

# When ``y = x W^T`` is computed as ``(W x^T)^T``: a batch of at most
# _T_MAX_ROWS rows, at least _T_MIN_RATIO times as many output features, a
# contracted axis of at least _T_MIN_K and _T_MIN_WORK multiply-adds. For
# such thin batches OpenBLAS runs the product with the weight as the left
# operand faster (one thread, float32, best of 40, with the bias added:
# 784 -> 1000 and 1000 -> 1000 at batch 100 8 % faster, 650 -> 2600 at
# batch 20 39 %, 1000 -> 1000 at batch 8 46 %; batch 256 and above, or
# fewer than twice as many outputs as rows, the same or slower; a short
# contracted axis, 32, 60 % slower). The values are those of ``x W^T``
# within rounding: OpenBLAS gave the same bits for float32 on the shapes
# above, and for float64 differed in the last bit of a few elements at a
# block's ragged edge.
_T_MAX_ROWS = 160
_T_MIN_RATIO = 2
_T_MIN_K = 128
_T_MIN_WORK = 1 << 20

_T_DTYPES = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))


def _transposed_pays(x2: Any, W: Any) -> bool:
    """Whether the forward product runs as ``(W x^T)^T`` (see above)."""
    if type(x2) is not numpy.ndarray or type(W) is not numpy.ndarray:
        return False
    m, k = x2.shape
    n = W.shape[0]
    return (
        m <= _T_MAX_ROWS
        and n >= _T_MIN_RATIO * m
        and k >= _T_MIN_K
        and m * n * k >= _T_MIN_WORK
        and x2.dtype == W.dtype
        and x2.dtype in _T_DTYPES
    )


def _product_transposed(x2: Any, W: Any, b: Any) -> Any:
    """``x2 W^T (+ b)`` as a C-ordered array, the product computed as
    ``W x2^T``.

    OpenBLAS's tiled transposing copy and then the bias added in place
    (784 -> 1000 at batch 100: 21 + 18 us) beat NumPy's strided add that
    does both in one pass (84 us); the sums are the same.
    """
    yt = _gemm_split.matmul(W, x2.T)
    y = numpy.empty((yt.shape[1], yt.shape[0]), dtype=yt.dtype)
    if blas.transpose_into(yt, y):
        if b is not None:
            y += b
    elif b is None:
        numpy.copyto(y, yt.T)
    else:
        numpy.add(yt.T, b, out=y)
    return y


class LinearFunction(FunctionNode):
    """``x W^T (+ b)`` with the leading ``n_batch_axes`` axes of ``x`` as batch."""

    def __init__(self, n_batch_axes: int = 1) -> None:
        self.n_batch_axes = n_batch_axes

    def _passes_on_sight(self, arrays: Any) -> bool:
        """Whether light-mode ``arrays`` pass the check below, decided with
        plain comparisons (a fifth of the expectations' cost, paid by every
        layer at every step); any doubt goes to the full check."""
        if len(arrays) not in (2, 3):
            return False
        x, W = arrays[0], arrays[1]
        nb = self.n_batch_axes
        if (
            type(x) is not numpy.ndarray
            or type(W) is not numpy.ndarray
            or x.dtype.kind != "f"
            or W.dtype.kind != "f"
            or x.ndim < nb + 1
            or W.ndim != 2
        ):
            return False
        in_size = 1
        for s in x.shape[nb:]:
            in_size *= s
        if in_size != W.shape[1]:
            return False
        if len(arrays) == 2:
            return True
        b = arrays[2]
        return (
            type(b) is numpy.ndarray
            and b.dtype == x.dtype
            and b.ndim == 1
            and b.shape[0] == W.shape[0]
        )

    def check_type_forward(self, in_types: Any) -> None:
        if type(in_types) is type_check.LightTypeInfoTuple and self._passes_on_sight(
            in_types
        ):
            return
        n_in = len(in_types)
        type_check._argname(in_types, ("x", "W") if n_in == 2 else ("x", "W", "b"))
        x, w = in_types[0], in_types[1]
        type_check.expect(
            x.dtype.kind == "f",
            w.dtype.kind == "f",
            x.ndim >= self.n_batch_axes + 1,
            w.ndim == 2,
        )
        x_shape = type_check.eval(x.shape)
        in_size = 1
        for s in x_shape[self.n_batch_axes :]:
            in_size *= s
        w_in = type_check.eval(w.shape)[1]
        if in_size != w_in:
            raise type_check.InvalidType(
                "prod(x.shape[n_batch_axes:]) == W.shape[1]",
                f"{in_size} != {w_in} (x.shape={x_shape}, n_batch_axes="
                f"{self.n_batch_axes})",
            )
        if n_in == 3:
            b = in_types[2]
            type_check.expect(b.dtype == x.dtype, b.ndim == 1, b.shape[0] == w.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        self._x_shape = x.shape
        batch = x.shape[: self.n_batch_axes]
        x2 = x.reshape(-1, W.shape[1]) if x.ndim != 2 else x
        b = inputs[2] if len(inputs) == 3 else None
        if _transposed_pays(x2, W):
            y = _product_transposed(x2, W, b)
        else:
            # Large float32/64 products run as blocks on kusari's pool.
            y = _gemm_split.matmul(x2, W.T)
            if y.dtype != x.dtype:
                # Mixed dtypes: NumPy computed in the promoted dtype; y is x's.
                y = y.astype(x.dtype)
            if b is not None:
                y += b
        if len(batch) != 1:
            y = y.reshape(batch + (W.shape[0],))
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.cast import cast
        from kusari.functions.array.reshape import reshape
        from kusari.functions.math.matmul import matmul
        from kusari.functions.math.sum import sum as _sum

        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        if gy.ndim != 2:
            gy = reshape(gy, (-1, W.shape[0]))
        ret = []
        for i in indexes:
            if i == 0:
                # matmul promotes (gy has x's dtype); cast back to x's dtype.
                gx = matmul(gy, W)
                if gx.dtype != x.dtype:
                    gx = cast(gx, x.dtype)
                ret.append(
                    reshape(gx, self._x_shape) if gx.shape != self._x_shape else gx
                )
            elif i == 1:
                x2 = reshape(x, (-1, W.shape[1])) if x.ndim != 2 else x
                gy_w = gy
                if x.dtype != W.dtype:
                    # Accumulate in the promoted dtype (a float16 x with a
                    # float32 W sums in float32), then return W's dtype.
                    wide = numpy.promote_types(x.dtype, W.dtype)
                    x2 = cast(x2, wide) if x2.dtype != wide else x2
                    gy_w = cast(gy, wide) if gy.dtype != wide else gy
                gW = matmul(gy_w, x2, transa=True)
                ret.append(cast(gW, W.dtype) if gW.dtype != W.dtype else gW)
            else:
                ret.append(_sum(gy, axis=0))
        return tuple(ret)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # The arithmetic of backward above (the same NumPy calls, so the
        # same bits) without a FunctionNode and Variables per product: in a
        # first-order pass those cost more than the bias gradient itself.
        x = _retained(self, 0)
        W = _retained(self, 1)
        (gy,) = grad_outputs
        if gy.ndim != 2:
            gy = gy.reshape(-1, W.shape[0])
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                gx = _gemm_split.matmul(gy, W)
                if gx.dtype != x.dtype:
                    gx = gx.astype(x.dtype)
                ret.append(
                    gx.reshape(self._x_shape) if gx.shape != self._x_shape else gx
                )
            elif i == 1:
                x2 = x.reshape(-1, W.shape[1]) if x.ndim != 2 else x
                gy_w = gy
                if x.dtype != W.dtype:
                    wide = numpy.promote_types(x.dtype, W.dtype)
                    x2 = x2.astype(wide, copy=False)
                    gy_w = gy.astype(wide, copy=False)
                gW = _gemm_split.matmul(gy_w.T, x2)
                ret.append(gW.astype(W.dtype, copy=False))
            elif gy.size < threads.MIN_ELEMENTS or type(gy) is not numpy.ndarray:
                ret.append(force_array(gy.sum(axis=0)))
            else:
                ret.append(threads.reduce_sum(gy, (0,)))
        return tuple(ret)


def linear(x: Any, W: Any, b: Any = None, n_batch_axes: int = 1) -> Variable:
    """Linear (fully connected) transformation ``x W^T + b``.

    ``x`` and ``W`` may have different float dtypes; the output and ``b`` have
    ``x``'s dtype, and each gradient its input's dtype.

    Args:
        x: Input of shape ``batch_shape + in_shape``; the trailing axes are
            flattened to ``in_size``.
        W: Weight of shape ``(out_size, in_size)``.
        b: Optional bias of shape ``(out_size,)``.
        n_batch_axes: How many leading axes of ``x`` are batch axes.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((2, 3), np.float32)
        >>> W = np.ones((4, 3), np.float32)
        >>> F.linear(x, W).array
        array([[3., 3., 3., 3.],
               [3., 3., 3., 3.]], dtype=float32)
    """
    if n_batch_axes <= 0:
        raise ValueError(f"linear: n_batch_axes must be positive, got {n_batch_axes}")
    args = (x, W) if b is None else (x, W, b)
    return LinearFunction(n_batch_axes).apply(args)[0]
