"""``reshape``: the same elements in another shape."""

from __future__ import annotations

from typing import Any

from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


def _resolve(shape: tuple[int, ...], size: int) -> tuple[int, ...] | None:
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in shape):
        return None
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if unknown:
        if known == 0 or size % known:
            return None
        out = list(shape)
        out[unknown[0]] = size // known
        return tuple(out)
    return shape if known == size else None


class Reshape(FunctionNode):
    """Reshape an array (one ``-1`` may stand for the inferred length)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        size = type_check.eval(in_types[0].size)
        if _resolve(self.shape, size) is None:
            raise type_check.InvalidType(
                f"in_types[0].size can be reshaped to {self.shape}",
                f"size {size} (shape {type_check.eval(in_types[0].shape)})",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        return (x.reshape(self.shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (reshape(grad_outputs[0], self._in_shape),)


def reshape(x: Any, shape: Any) -> Variable:
    """Reshape ``x`` without copying when possible.

    Args:
        x: Input variable.
        shape: The new shape; one entry may be ``-1``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.reshape(np.arange(6, dtype=np.float32), (2, -1)).shape
        (2, 3)
    """
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if x.shape == shape:
        # Nothing to do: the input itself (an array wrapped, not copied).
        return as_variable(x)
    return Reshape(shape).apply((x,))[0]
