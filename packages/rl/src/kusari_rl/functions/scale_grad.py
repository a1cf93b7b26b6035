"""Identity whose gradient is scaled."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class ScaleGrad(FunctionNode):
    """``y = x`` forward, ``gx = scale * gy`` backward."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0].copy(),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # A Variable product, so the gradient is itself differentiable.
        return (grad_outputs[0] * self.scale,)


def scale_grad(x: Any, scale: float) -> Variable:
    """Pass ``x`` through unchanged but multiply its gradient by ``scale``.

    Used to balance how much a shared torso learns from each head.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> from kusari_rl.functions import scale_grad
        >>> x = kusari.Variable(np.array([1., 2.], np.float32))
        >>> y = scale_grad(x, 0.5)
        >>> y.grad = np.ones(2, np.float32)
        >>> y.backward()
        >>> x.grad
        array([0.5, 0.5], dtype=float32)
    """
    return ScaleGrad(scale).apply((x,))[0]
