"""Logistic sigmoid."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.functions.activation._checks import check_one_float
from kusari.utils import force_array
from kusari.variable import Variable


class Sigmoid(FunctionNode):
    """``1 / (1 + exp(-x))``, computed as ``tanh(x / 2) / 2 + 1 / 2`` (no overflow)."""

    check_type_forward = staticmethod(check_one_float)
    _float_input_passes_type_check = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        if not isinstance(x, numpy.ndarray):
            return (
                cuda.elementwise(
                    "T x",
                    "T y",
                    "y = tanh(x * (T)0.5) * (T)0.5 + (T)0.5",
                    "kusari_sigmoid_fwd",
                )(x),
            )
        half = x.dtype.type(0.5)
        return (force_array(numpy.tanh(x * half) * half + half),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return SigmoidGrad().apply((y, grad_outputs[0]))

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (_sigmoid_grad(self.retained_output_arrays()[0], grad_outputs[0]),)


def _sigmoid_grad(y: Any, gy: Any) -> Any:
    if not isinstance(y, numpy.ndarray):
        return cuda.elementwise(
            "T y, T gy", "T gx", "gx = gy * y * ((T)1 - y)", "kusari_sigmoid_bwd"
        )(y, gy)
    return force_array(gy * y * (1 - y))


class SigmoidGrad(FunctionNode):
    """``gy * y * (1 - y)`` in one node; inputs are ``(y, gy)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return (_sigmoid_grad(y, gy),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * (1.0 - 2.0 * y))
            else:
                ret.append(SigmoidGrad().apply((y, ggx))[0])
        return tuple(ret)


def sigmoid(x: Any) -> Variable:
    """Elementwise logistic sigmoid.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sigmoid(np.zeros(1, np.float32)).array
        array([0.5], dtype=float32)
    """
    return Sigmoid().apply((x,))[0]
