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


class ReLU(FunctionNode):
    """``max(0, x)``."""

    check_type_forward = staticmethod(check_one_float)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        if type(x) is numpy.ndarray and x.size >= threads.MIN_ELEMENTS:
            # Large maps (a convolution's output) split over the intra-op
            # threads; a Python 0.0 keeps x's dtype.
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
