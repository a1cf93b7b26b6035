"""Broadcasting: ``broadcast_to`` a shape and ``broadcast`` inputs together."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


class BroadcastTo(FunctionNode):
    """Broadcast an array to a shape."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        xshape = type_check.eval(in_types[0].shape)
        shape = self._shape
        lead = len(shape) - len(xshape)
        ok = lead >= 0 and all(
            xs == 1 or xs == s for xs, s in zip(xshape, shape[lead:])
        )
        if not ok:
            raise type_check.InvalidType(
                f"in_types[0].shape can be broadcast to {shape}", f"{xshape}"
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return (xp.broadcast_to(x, self._shape),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.sum import sum_to

        return (sum_to(grad_outputs[0], self._in_shape),)


def broadcast_to(x: Any, shape: tuple[int, ...]) -> Variable:
    """Broadcast ``x`` to ``shape`` (NumPy rules).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.broadcast_to(np.ones(3, np.float32), (2, 3)).shape
        (2, 3)
    """
    shape = tuple(shape)
    if getattr(x, "shape", None) == shape:
        # Nothing to broadcast: the input itself, as Chainer returns it.
        return as_variable(x)
    return BroadcastTo(shape).apply((x,))[0]


def broadcast(*args: Any) -> Any:
    """Broadcast all inputs to their common shape.

    Returns:
        A tuple of Variables, or a single Variable for one input.
    """
    if not args:
        # InvalidType, as Chainer's type check reports it.
        raise type_check.InvalidType(
            "in_types.size() > 0",
            "0",
            msg="\nInvalid operation is performed in: Broadcast (Forward)\n\n"
            "Expect: at least one input\nActual: no inputs",
        )
    if len(args) == 1:
        return as_variable(args[0])
    shapes = [a.shape for a in args]
    try:
        shape = backend.get_array_module(*args).broadcast_shapes(*shapes)
    except ValueError:
        raise type_check.InvalidType(
            "the input shapes can be broadcast together",
            ", ".join(map(str, shapes)),
            msg="\nInvalid operation is performed in: Broadcast (Forward)\n\n"
            f"Expect: shapes can be broadcast\nActual: {shapes}",
        ) from None
    outs = tuple(
        broadcast_to(a, shape)
        if isinstance(a, Variable)
        else BroadcastTo(shape).apply((a,))[0]
        for a in args
    )
    return outs[0] if len(outs) == 1 else outs
