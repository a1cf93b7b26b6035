"""Hard sigmoid, ``clip(0.2 * x + 0.5, 0, 1)``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.relu import ReLUGrad
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class HardSigmoid(FunctionNode):
    """Piecewise-linear sigmoid; slope 0.2 on ``(-2.5, 2.5)``, flat elsewhere."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        t = x.dtype.type
        y = xp.clip(x * t(0.2) + t(0.5), t(0), t(1))
        self.slope = ((x > -2.5) & (x < 2.5)) * t(0.2)
        return (force_array(y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return ReLUGrad(self.slope).apply(grad_outputs)


def hard_sigmoid(x: Any) -> Variable:
    """Elementwise hard sigmoid, ``clip(0.2 * x + 0.5, 0, 1)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.hard_sigmoid(np.array([-3., 0., 1.], np.float32)).array
        array([0. , 0.5, 0.7], dtype=float32)
    """
    return HardSigmoid().apply((x,))[0]
