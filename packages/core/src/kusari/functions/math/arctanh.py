"""Elementwise inverse hyperbolic tangent."""

from __future__ import annotations

from typing import Any

from kusari.functions.math.trigonometric import _UnaryInput
from kusari.variable import Variable


class Arctanh(_UnaryInput):
    ufunc = "arctanh"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (1.0 - x * x),)


def arctanh(x: Any) -> Variable:
    """Elementwise inverse hyperbolic tangent (input in (-1, 1)).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.arctanh(np.zeros(2, np.float32)).array
        array([0., 0.], dtype=float32)
    """
    return Arctanh().apply((x,))[0]
