"""Rectified linear unit."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.functions.activation._checks import check_one_float
from kusari.utils import force_array, threads
from kusari.variable import Variable

# numpy.maximum against a scalar zero takes a slow loop (NumPy 2.x, float32,
# 100k elements: 42-45 us); against an array of zeros its vectorised one,
# with the same bits, NaN and -0.0 included. The zeros are one read-only
# block per dtype, read again for each block of the input: 64k elements
# (256 kB of float32, resident and in cache) gave 100k elements in 19 us and
# 1.15M in 210-236 us (scalar: 493); 16k elements 25 / 307-337 us, 256k
# 17 / 185-212 us for four times the memory.
_ZERO_BLOCK = 1 << 16
_ZERO_DTYPES = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))
_zeros: dict[Any, Any] = {}


def _zeros_of(dtype: Any) -> Any:
    """The read-only block of :data:`_ZERO_BLOCK` zeros of ``dtype``."""
    z = _zeros.get(dtype)
    if z is None:
        z = numpy.zeros(_ZERO_BLOCK, dtype=dtype)
        z.flags.writeable = False
        _zeros[dtype] = z
    return z


def _relu_cpu(x: Any) -> Any:
    """``max(x, 0)`` for a C-contiguous float32/float64 NumPy ``x``: against
    the zero block, in blocks, over the intra-op threads when large."""
    out = numpy.empty(x.shape, dtype=x.dtype)
    xf, of = x.reshape(-1), out.reshape(-1)
    zeros = _zeros_of(x.dtype)

    def work(lo: int, hi: int) -> None:
        for s in range(lo, hi, _ZERO_BLOCK):
            e = min(hi, s + _ZERO_BLOCK)
            numpy.maximum(xf[s:e], zeros[: e - s], out=of[s:e])

    if x.size >= threads.MIN_ELEMENTS:
        threads.run_split(work, x.size, x.nbytes * 3)
    else:
        work(0, x.size)
    return out


class ReLU(FunctionNode):
    """``max(0, x)``."""

    check_type_forward = staticmethod(check_one_float)
    _float_input_passes_type_check = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        if type(x) is numpy.ndarray:
            if x.dtype in _ZERO_DTYPES and x.flags.c_contiguous:
                return (_relu_cpu(x),)
            if x.size >= threads.MIN_ELEMENTS:
                # Large maps split over the intra-op threads; a Python 0.0
                # keeps x's dtype.
                return (force_array(threads.elementwise(numpy.maximum, x, 0.0)),)
        xp = backend.get_array_module(x)
        # NumPy returns a scalar for a 0-d input; outputs must be arrays.
        return (force_array(xp.maximum(x, x.dtype.type(0))),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        y = self.get_retained_outputs()[0].array
        return ReLUGrad(y, from_output=True).apply(grad_outputs)

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (_relu_grad(self.retained_output_arrays()[0], grad_outputs[0]),)


def _relu_grad(y: Any, gy: Any) -> Any:
    """``gy * (y > 0)``; one fused pass on GPU instead of a mask and a multiply."""
    if isinstance(gy, numpy.ndarray):
        if gy.size >= threads.MIN_ELEMENTS:
            return _relu_grad_split(y, gy)
        if type(y) is numpy.ndarray and y.shape == gy.shape:
            # The mask made a float array first: multiplying by a bool
            # array casts it element by element in NumPy's buffered loop
            # (float32, 100k elements: 35 -> 30 us); the same products.
            gx = (y > 0).astype(gy.dtype)
            gx *= gy
            return force_array(gx)  # a 0-d y's mask is a NumPy scalar
        return force_array(gy * (y > 0))
    return cuda.elementwise(
        "T y, T gy", "T gx", "gx = y > (T)0 ? gy : (T)0", "kusari_relu_bwd"
    )(y, gy)


def _relu_grad_split(y: Any, gy: Any) -> Any:
    """``gy * (y > 0)`` over flat ranges on the intra-op threads (C-ordered
    operands of one shape; others as one expression)."""
    if (
        type(y) is not numpy.ndarray
        or y.shape != gy.shape
        or not (y.flags.c_contiguous and gy.flags.c_contiguous)
    ):
        return force_array(gy * (y > 0))
    out = numpy.empty(gy.shape, dtype=gy.dtype)
    yf, gf, of = y.reshape(-1), gy.reshape(-1), out.reshape(-1)

    def work(lo: int, hi: int) -> None:
        numpy.multiply(gf[lo:hi], yf[lo:hi] > 0, out=of[lo:hi])

    threads.run_split(work, gf.size, gy.nbytes + y.nbytes + out.nbytes)
    return out


class ReLUGrad(FunctionNode):
    """``gy * mask``; linear in ``gy``, so it is its own derivative.

    Other activations reuse it with their own fixed factor as ``mask``. With
    ``from_output=True``, ``mask`` is ReLU's output ``y`` and the factor is
    ``y > 0``, formed in the same pass as the product.
    """

    def __init__(self, mask: Any, from_output: bool = False) -> None:
        self.mask = mask
        self.from_output = from_output

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        if not self.from_output:
            return (force_array(gy * self.mask),)
        return (force_array(_relu_grad(self.mask, gy)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ReLUGrad(self.mask, self.from_output).apply(grad_outputs)


def relu(x: Any) -> Variable:
    """Rectified linear unit, ``max(0, x)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.relu(np.array([-1., 2.], np.float32)).array
        array([0., 2.], dtype=float32)
    """
    return ReLU().apply((x,))[0]
