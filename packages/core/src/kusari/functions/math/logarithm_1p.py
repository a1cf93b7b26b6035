"""``log1p``: ``log(1 + x)``, accurate near zero."""

from __future__ import annotations

from typing import Any

from kusari.functions.math.trigonometric import _UnaryInput
from kusari.variable import Variable


class Log1p(_UnaryInput):
    ufunc = "log1p"

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (x + 1.0),)


def log1p(x: Any) -> Variable:
    """Elementwise ``log(1 + x)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.log1p(np.zeros(2, np.float32)).array
        array([0., 0.], dtype=float32)
    """
    return Log1p().apply((x,))[0]
