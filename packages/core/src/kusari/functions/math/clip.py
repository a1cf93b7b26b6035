"""``clip``: limit values to an interval."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import check_float_unary
from kusari.utils import force_array
from kusari.variable import Variable


class Clip(FunctionNode):
    check_type_forward = staticmethod(check_float_unary)

    def __init__(self, x_min: Any, x_max: Any) -> None:
        self.x_min = x_min
        self.x_max = x_max

    @property
    def label(self) -> str:
        return "clip"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        lo = None if self.x_min is None else x.dtype.type(self.x_min)
        hi = None if self.x_max is None else x.dtype.type(self.x_max)
        self._bounds = (lo, hi)
        y = x
        if lo is not None:
            y = xp.maximum(y, lo)
        if hi is not None:
            y = xp.minimum(y, hi)
        return (force_array(y, x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        lo, hi = self._bounds
        xa = x.array
        if lo is None:
            mask = xa <= hi
        elif hi is None:
            mask = xa >= lo
        else:
            mask = (xa >= lo) & (xa <= hi)
        return (grad_outputs[0] * mask.astype(xa.dtype),)


def clip(x: Any, x_min: Any, x_max: Any) -> Variable:
    """Clip values into ``[x_min, x_max]``; the gradient passes inside the interval.

    Args:
        x: Input variable.
        x_min: Lower bound (a scalar, or None for no lower bound).
        x_max: Upper bound (a scalar, or None for no upper bound).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.clip(np.array([-2., 0., 2.], np.float32), -1.0, 1.0).array
        array([-1.,  0.,  1.], dtype=float32)
    """
    if x_min is None and x_max is None:
        raise ValueError("clip: x_min and x_max must not both be None")
    for name, v in (("x_min", x_min), ("x_max", x_max)):
        if (
            v is not None
            and not isinstance(v, (int, float))
            and not (hasattr(v, "ndim") and v.ndim == 0)
        ):
            raise TypeError(
                f"clip: {name} must be a scalar or None, got {type(v).__name__}"
            )
    if x_min is not None and x_max is not None and x_min > x_max:
        raise ValueError(f"clip: x_min ({x_min}) must not exceed x_max ({x_max})")
    return Clip(x_min, x_max).apply((x,))[0]
