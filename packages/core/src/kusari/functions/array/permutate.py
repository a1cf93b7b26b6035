"""``permutate``: reorder the slices of an array along an axis."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _is_permutation(indices: Any) -> bool:
    n = len(indices)
    ind = cuda.to_cpu(indices)
    seen = numpy.zeros(n, dtype=bool)
    valid = (ind >= 0) & (ind < n)
    if not valid.all():
        return False
    seen[ind] = True
    return bool(seen.all())


class Permutate(FunctionNode):
    """``y = x.take(indices, axis)`` (or its inverse permutation)."""

    def __init__(self, axis: int = 0, inv: bool = False) -> None:
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(
                f"permutate: axis must be an int, got {type(axis).__name__}"
            )
        self.axis = axis
        self.inv = inv

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "indices"))
        x, ind = in_types
        if self.axis < 0:
            type_check.expect(x.ndim >= -self.axis)
        else:
            type_check.expect(x.ndim > self.axis)
        type_check.expect(
            ind.dtype.kind == "i", ind.ndim == 1, x.shape[self.axis] == ind.shape[0]
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        x, ind = inputs
        if not _is_permutation(ind):
            raise ValueError(f"permutate: indices is not a permutation: {ind}")
        xp = backend.get_array_module(x)
        if self.inv:
            ind = xp.argsort(ind)
        return (xp.take(x, ind, axis=self.axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        (ind,) = self.get_retained_inputs()
        return permutate(gy, ind.array, self.axis, not self.inv), None


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> Variable:
    """Permute ``x`` along ``axis``: ``y[i] = x[indices[i]]``.

    Args:
        x: Input variable.
        indices: A 1-D int32 array (or Variable) holding a permutation of
            ``range(x.shape[axis])``; not differentiated.
        axis: The axis to permute.
        inv: Apply the inverse permutation: ``y[indices[i]] = x[i]``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(3, dtype=np.float32)
        >>> F.permutate(x, np.array([2, 0, 1], np.int32)).array
        array([2., 0., 1.], dtype=float32)
    """
    return Permutate(axis, inv).apply((x, indices))[0]
