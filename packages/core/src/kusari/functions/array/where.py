"""``where``: choose elements from ``x`` or ``y`` by a boolean condition."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, _array_types


class Where(FunctionNode):
    """``condition ? x : y`` elementwise, with broadcasting."""

    def __init__(self, condition: Any) -> None:
        self.condition = condition

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "y"))
        x, y = in_types
        c = self.condition
        type_check.expect(x.dtype == y.dtype)
        if c.dtype != numpy.bool_:
            raise type_check.InvalidType(
                "condition.dtype == bool", f"condition.dtype == {c.dtype}"
            )
        type_check.expect_broadcast_shapes(c.shape, x.shape, y.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, y = inputs
        xp = backend.get_array_module(x, y)
        self._shapes = x.shape, y.shape
        if xp is not numpy:  # pragma: no cover - needs CuPy
            self.condition = xp.asarray(self.condition)
        return (xp.asarray(xp.where(self.condition, x, y)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.sum import sum_to

        (gy,) = grad_outputs
        xp = backend.get_array_module(gy)
        zero = Variable(xp.zeros((), dtype=gy.dtype), requires_grad=False)
        ret = []
        for i in indexes:
            if i == 0:
                g = where(self.condition, gy, zero)
            else:
                g = where(self.condition, zero, gy)
            ret.append(sum_to(g, self._shapes[i]))
        return tuple(ret)


def where(condition: Any, x: Any, y: Any) -> Variable:
    """Choose elements of ``x`` where ``condition`` is True, else of ``y``.

    Args:
        condition: A boolean array (or Variable); not differentiated.
        x: Variable or array taken where the condition holds.
        y: Variable or array taken elsewhere (same dtype as ``x``).
            ``condition``, ``x`` and ``y`` broadcast together.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> c = np.array([True, False])
        >>> F.where(c, np.ones(2, np.float32), np.zeros(2, np.float32)).array
        array([1., 0.], dtype=float32)
    """
    if isinstance(condition, Variable):
        condition = condition.array
    if not isinstance(condition, _array_types):
        condition = numpy.asarray(condition)
    return Where(condition).apply((x, y))[0]
