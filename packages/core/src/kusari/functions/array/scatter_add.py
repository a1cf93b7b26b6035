"""``scatter_add``: ``a`` with ``b`` added at ``a[slices]`` (repeats accumulate)."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.array._util import index_add
from kusari.functions.array.get_item import _normalize
from kusari.utils import type_check
from kusari.variable import Variable


class ScatterAdd(FunctionNode):
    """``y = a.copy(); y[slices] += b`` with unbuffered accumulation."""

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize(slices)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a", "b"))
        a, b = in_types
        type_check.expect(a.dtype == b.dtype)
        # As in Chainer v7, indexing more axes than ``a`` has is a type error
        # (None adds an axis and Ellipsis takes none; a boolean mask takes
        # as many axes as it has).
        taken = sum(
            s.ndim if getattr(getattr(s, "dtype", None), "kind", "") == "b" else 1
            for s in self.slices
            if s is not None and s is not Ellipsis
        )
        type_check.expect(a.ndim >= taken)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        a, b = inputs
        xp = backend.get_array_module(a)
        self._b_shape = b.shape
        y = a.copy()
        try:
            index_add(xp, y, self.slices, b)
        except (IndexError, ValueError) as e:
            raise type(e)(
                f"scatter_add: {e} (a.shape={a.shape}, b.shape={b.shape})"
            ) from None
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.get_item import get_item
        from kusari.functions.math.sum import sum_to

        (gy,) = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy)
            else:
                ret.append(sum_to(get_item(gy, self.slices), self._b_shape))
        return tuple(ret)


def scatter_add(a: Any, slices: Any, b: Any) -> Variable:
    """Return ``a`` with ``b`` added at ``a[slices]``; repeated indices add up.

    Args:
        a: Variable to add to (not modified).
        slices: Indices as for ``get_item`` (ints, slices, index arrays...).
        b: Values of exactly the shape of ``a[slices]`` (same dtype as ``a``;
            no broadcasting, as in Chainer v7).

    Raises:
        kusari.utils.type_check.InvalidType: ``slices`` index more axes than
            ``a`` has, or the dtypes differ.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a, b = np.zeros(3, np.float32), np.ones(3, np.float32)
        >>> F.scatter_add(a, [0, 0, 2], b).array
        array([2., 0., 1.], dtype=float32)
    """
    return ScatterAdd(slices).apply((a, b))[0]
