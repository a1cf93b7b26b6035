"""``cast``: convert the dtype; the gradient is cast back to the input's."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, as_variable


class Cast(FunctionNode):
    """Cast an array to ``typ``."""

    def __init__(self, typ: Any) -> None:
        self.type = numpy.dtype(typ)

    @property
    def label(self) -> str:
        return f"Cast to {self.type}"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_type = x.dtype
        return (x.astype(self.type, copy=False),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (g,) = grad_outputs
        if numpy.dtype(self._in_type).kind != "f":
            return (None,)
        return (cast(g, self._in_type),)


def cast(x: Any, typ: Any) -> Variable:
    """Cast ``x`` to the dtype ``typ``; backward casts gradients back.

    When ``x`` already has the dtype and backprop is off, ``x`` itself is
    returned (as a Variable).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.cast(np.ones(2, np.float32), np.float16).dtype
        dtype('float16')
    """
    if x.dtype == numpy.dtype(typ) and not kusari.config.enable_backprop:
        return as_variable(x)
    return Cast(typ).apply((x,))[0]
