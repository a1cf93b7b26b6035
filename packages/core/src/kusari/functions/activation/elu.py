"""Exponential linear unit."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.activation.relu import ReLUGrad
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class ELU(FunctionNode):
    """``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = float(alpha)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        neg = xp.expm1(xp.minimum(x, x.dtype.type(0))) * x.dtype.type(self.alpha)
        return (force_array(xp.where(x > 0, x, neg), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return ELUGrad(self.alpha).apply((x, grad_outputs[0]))[:1]


class ELUGrad(FunctionNode):
    """``gy * (1 if x > 0 else alpha * exp(x))``; inputs are ``(x, gy)``."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        pos = x > 0
        self.pos = pos
        t = x.dtype.type
        slope = xp.where(pos, t(1), xp.exp(xp.minimum(x, t(0))) * t(self.alpha))
        return (force_array(gy * slope, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        (ggx,) = grad_outputs
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                # d/dx of the slope is alpha * exp(x) on the negative side only:
                # ELUGrad(x, g) - g * (x > 0).
                g = ggx * gy
                ret.append(
                    ELUGrad(self.alpha).apply((x, g))[0]
                    - ReLUGrad(self.pos).apply((g,))[0]
                )
            else:
                ret.append(ELUGrad(self.alpha).apply((x, ggx))[0])
        return tuple(ret)


def elu(x: Any, alpha: float = 1.0) -> Variable:
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.elu(np.array([0., 2.], np.float32)).array
        array([0., 2.], dtype=float32)
    """
    return ELU(alpha).apply((x,))[0]
