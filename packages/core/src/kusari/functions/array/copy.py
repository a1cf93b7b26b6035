"""``copy``: copy an array to a device; gradients go back to the source device."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class Copy(FunctionNode):
    """Copy the input to the ``out_device``."""

    def __init__(self, in_device: Any, out_device: Any) -> None:
        self._in_device = in_device
        self.out_device = out_device

    @property
    def label(self) -> str:
        return "Copy"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        y = self.out_device.send(x)
        if y is x:
            y = x.copy()
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return Copy(self.out_device, self._in_device).apply(grad_outputs)


def copy(x: Any, dst: Any) -> Variable:
    """Copy ``x`` to the device ``dst``; the result is never a view.

    Args:
        x: Input variable.
        dst: Target device: a device specifier (``'@numpy'``, ``'@cupy:0'``),
            an int (``-1`` for the CPU, ``N >= 0`` for GPU ``N``) or a Device.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.copy(np.ones(2, np.float32), -1).array
        array([1., 1.], dtype=float32)
    """
    in_device = backend.get_device_from_array(getattr(x, "array", x))
    return Copy(in_device, backend.get_device(dst)).apply((x,))[0]
