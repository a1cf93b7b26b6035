"""Rectified linear unit."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class ReLU(FunctionNode):
    """``max(0, x)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
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
        return force_array(gy * (y > 0))
    return cuda.elementwise(
        "T y, T gy", "T gx", "gx = y > (T)0 ? gy : (T)0", "kusari_relu_bwd"
    )(y, gy)


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
