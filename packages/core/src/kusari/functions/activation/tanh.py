"""Hyperbolic tangent."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.configuration import _generation, _hot
from kusari.function_node import FunctionNode
from kusari.functions.activation._checks import check_one_float
from kusari.functions.math._arith_direct import direct, plain_result
from kusari.utils import force_array
from kusari.variable import Variable

_ndarray = numpy.ndarray
_FIRST = (0,)


class Tanh(FunctionNode):
    check_type_forward = staticmethod(check_one_float)
    _float_input_passes_type_check = True

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # retain_outputs((0,)) without the call: tanh is a common small op.
        self._output_indexes_to_retain = _FIRST
        (x,) = inputs
        if type(x) is _ndarray:
            y = numpy.tanh(x)
            # NumPy returns a scalar for a 0-d input; outputs must be arrays.
            return (y if type(y) is _ndarray else numpy.asarray(y),)
        return (force_array(backend.get_array_module(x).tanh(x)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return TanhGrad().apply((y, grad_outputs[0]))

    def backward_array(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (_tanh_grad(self.retained_output_arrays()[0], grad_outputs[0]),)


def _tanh_grad(y: Any, gy: Any) -> Any:
    if not isinstance(y, numpy.ndarray):
        return cuda.elementwise(
            "T y, T gy", "T gx", "gx = gy * ((T)1 - y * y)", "kusari_tanh_bwd"
        )(y, gy)
    return force_array(gy * (1 - y * y))


class TanhGrad(FunctionNode):
    """``gy * (1 - y * y)`` in one node; inputs are ``(y, gy)``."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return (_tanh_grad(y, gy),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(-2.0 * ggx * gy * y)
            else:
                ret.append(TanhGrad().apply((y, ggx))[0])
        return tuple(ret)


def tanh(x: Any) -> Variable:
    """Elementwise hyperbolic tangent.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.tanh(np.zeros(1, np.float32)).array
        array([0.], dtype=float32)
    """
    if isinstance(x, Variable):
        if not _hot.enable_backprop or _hot.generation != _generation[0]:
            # Nothing would record or observe a node (see direct): compute
            # on the array, where Tanh's type check passes on sight.
            d = x._data
            if type(d) is _ndarray and d.dtype.kind == "f" and direct():
                return plain_result(numpy.tanh(d), x._requires_grad)
        return Tanh()._apply_one(x)[0]  # apply's shortcut, called directly
    return Tanh().apply((x,))[0]
