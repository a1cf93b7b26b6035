"""``pad_sequence``: pad variable-length sequences into one batch array."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class PadSequence(FunctionNode):
    """Stack sequences ``(L_i, ...)`` into ``(n, length, ...)`` with padding."""

    def __init__(self, length: int | None, padding: Any) -> None:
        self.length = length
        self.padding = padding

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        x0 = in_types[0]
        type_check.expect(x0.ndim > 0)
        for i in range(type_check.eval(in_types.size())):
            x = in_types[i]
            type_check.expect(
                x.ndim == x0.ndim, x.shape[1:] == x0.shape[1:], x.dtype == x0.dtype
            )
            if self.length is not None:
                type_check.expect(x.shape[0] <= self.length)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        lengths = [len(x) for x in inputs]
        length = max(lengths) if self.length is None else self.length
        self._lengths = lengths
        x0 = inputs[0]
        y = xp.empty((len(inputs), length) + x0.shape[1:], dtype=x0.dtype)
        try:
            y.fill(self.padding)
        except (OverflowError, ValueError, TypeError) as e:
            # NumPy 2 refuses a value the dtype cannot hold (-1 for uint8,
            # inf for int32) where NumPy 1, under Chainer v7, wrapped it.
            raise type(e)(
                f"pad_sequence: padding {self.padding!r} does not fit the "
                f"inputs' dtype {x0.dtype}: {e}"
            ) from None
        for i, x in enumerate(inputs):
            y[i, : len(x)] = x
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.get_item import get_item

        (gy,) = grad_outputs
        return tuple(get_item(gy, (i, slice(0, self._lengths[i]))) for i in indexes)


def pad_sequence(xs: Any, length: int | None = None, padding: Any = 0) -> Variable:
    """Pad sequences of shapes ``(L_i, ...)`` into one ``(n, L, ...)`` array.

    Args:
        xs: A list of variables; their shapes agree except in the first axis.
        length: The padded length ``L`` (default: the longest sequence);
            every ``L_i`` must be at most ``L``.
        padding: The value of the padded elements; it must fit the inputs'
            dtype (``-1`` for ``uint8`` or ``inf`` for ints raise, as NumPy 2
            does, where Chainer v7 on NumPy 1 wrapped or cast them).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> xs = [np.ones(2, np.float32), np.ones(1, np.float32)]
        >>> F.pad_sequence(xs, padding=-1).array
        array([[ 1.,  1.],
               [ 1., -1.]], dtype=float32)
    """
    return PadSequence(length, padding).apply(tuple(xs))[0]
