"""``squeeze``: remove axes of length one (a view)."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Squeeze(FunctionNode):
    """Remove the given (or all) length-one axes."""

    def __init__(self, axis: Any = None) -> None:
        if axis is None:
            self.axis = None
        elif isinstance(axis, int) and not isinstance(axis, bool):
            self.axis = (axis,)
        elif isinstance(axis, tuple) and all(isinstance(a, int) for a in axis):
            self.axis = axis
        else:
            raise TypeError(
                f"squeeze: axis must be None, an int or a tuple of ints, got {axis!r}"
            )

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axis is not None:
            x = in_types[0]
            for a in self.axis:
                if a >= 0:
                    type_check.expect(a < x.ndim)
                else:
                    type_check.expect(-x.ndim <= a)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        if self.axis is None:
            axis = tuple(i for i, s in enumerate(x.shape) if s == 1)
        else:
            axis = tuple(a % x.ndim for a in self.axis)
            for a in axis:
                if x.shape[a] != 1:
                    raise ValueError(
                        "squeeze: cannot select an axis to squeeze out which has size "
                        f"not equal to one (axis {a} of shape {x.shape})"
                    )
        return (x.squeeze(axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.reshape import Reshape

        # Always a node (``reshape`` returns its input when the shape matches).
        return Reshape(self._in_shape).apply(grad_outputs)


def squeeze(x: Any, axis: Any = None) -> Variable:
    """Remove axes of length one.

    Args:
        x: Input variable.
        axis: None (every length-one axis), an int or a tuple of ints; each
            named axis must have length one.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.squeeze(np.zeros((1, 3, 1), np.float32)).shape
        (3,)
    """
    return Squeeze(axis).apply((x,))[0]
