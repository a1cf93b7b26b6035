"""``polygamma``: the n-th derivative of the digamma function."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.math._helpers import special
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class PolyGamma(FunctionNode):
    @property
    def label(self) -> str:
        return "polygamma"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("n", "x"))
        n, x = in_types
        type_check.expect(n.dtype.kind == "i", x.dtype.kind == "f")
        type_check.expect_broadcast_shapes(n.shape, x.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        n, x = inputs
        f = special("polygamma", "polygamma", backend.get_array_module(x))
        return (force_array(f(n, x), x.dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.math.basic_math import _reduce_to

        n, x = self.get_retained_inputs()
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                ret.append(None)
            else:
                g = grad_outputs[0] * polygamma(force_array(n.array + 1), x)
                ret.append(_reduce_to(g, x.shape))
        return tuple(ret)


def polygamma(n: Any, x: Any) -> Variable:
    """Elementwise polygamma function of order ``n`` (integers) at ``x``.

    Only ``x`` is differentiated.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> F.polygamma(np.zeros(1, np.int32), np.ones(1, np.float32)).array
        array([-0.57722], dtype=float32)
    """
    return PolyGamma().apply((n, x))[0]
