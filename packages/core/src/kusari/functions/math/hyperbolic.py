"""Hyperbolic functions: sinh and cosh."""

from __future__ import annotations

from typing import Any

from kusari.functions.math.trigonometric import _UnaryInput
from kusari.variable import Variable


class Sinh(_UnaryInput):
    ufunc = "sinh"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * cosh(x),)


class Cosh(_UnaryInput):
    ufunc = "cosh"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * sinh(x),)


def sinh(x: Any) -> Variable:
    """Elementwise hyperbolic sine.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.sinh(np.zeros(2, np.float32)).array
        array([0., 0.], dtype=float32)
    """
    return Sinh().apply((x,))[0]


def cosh(x: Any) -> Variable:
    """Elementwise hyperbolic cosine."""
    return Cosh().apply((x,))[0]
