"""``fmod``: elementwise remainder of division, with the sign of the dividend."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Fmod(FunctionNode):
    @property
    def label(self) -> str:
        return "fmod"

    def check_type_forward(self, in_types: Any) -> None:
        check_float(in_types, ("x", "divisor"))
        type_check.expect(in_types[0].shape == in_types[1].shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, d = inputs
        return (force_array(backend.get_array_module(x).fmod(x, d), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, d = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        gy = grad_outputs[0]
        q = force_array(xp.trunc(x.array / d.array), x.dtype)
        return tuple([gy if i == 0 else -(gy * q) for i in indexes])


def fmod(x: Any, divisor: Any) -> Variable:
    """Elementwise ``x - fix(x / divisor) * divisor``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.array([-3., 3.], np.float32)
        >>> F.fmod(x, np.array([2., 2.], np.float32)).array
        array([-1.,  1.], dtype=float32)
    """
    return Fmod().apply((x, divisor))[0]
