"""``zeta``: the Hurwitz zeta function, differentiated in ``q``."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import special
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class Zeta(FunctionNode):
    def __init__(self, x: Any) -> None:
        self._x = x

    @property
    def label(self) -> str:
        return "zeta"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("q",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (q,) = inputs
        if self._x.dtype != q.dtype:
            self._x = self._x.astype(q.dtype)
        f = special("zeta", "zeta", backend.get_array_module(q))
        return (force_array(f(self._x, q), q.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.basic_math import _reduce_to

        (q,) = self.get_retained_inputs()
        # d/dq zeta(x, q) = -x zeta(x + 1, q)
        g = grad_outputs[0] * (-self._x) * zeta(self._x + 1, q)
        return (_reduce_to(g, q.shape),)


def zeta(x: Any, q: Any) -> Variable:
    """Elementwise Hurwitz zeta function ``sum_k (k + q) ** -x``.

    Args:
        x: An array (not differentiated; used in the dtype of ``q``).
        q: Input variable.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.zeta(np.array([2.], np.float32), np.ones(1, np.float32)).array  # pi**2/6
        array([1.64493], dtype=float32)
    """
    if isinstance(x, Variable):
        raise TypeError(
            "zeta: x must be an array (it is not differentiated), got a Variable"
        )
    if not hasattr(x, "dtype"):
        raise TypeError(f"zeta: x must be an ndarray, got {type(x).__name__}")
    return Zeta(x).apply((q,))[0]
