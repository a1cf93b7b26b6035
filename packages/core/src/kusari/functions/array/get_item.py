"""``get_item``: NumPy-style indexing of a Variable (``x[...]``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable, _array_types


def _normalize(slices: Any) -> tuple[Any, ...]:
    if isinstance(slices, list) and not all(
        isinstance(s, (int, numpy.integer)) for s in slices
    ):
        # Chainer's rule: a list of ints (or an empty list) is one index
        # array; any other list is read as the tuple of its items.
        slices = tuple(slices)
    elif not isinstance(slices, tuple):
        slices = (slices,)
    if sum(s is Ellipsis for s in slices) > 1:
        raise ValueError(
            f"get_item: only one Ellipsis is allowed in an index, got {slices!r}"
        )
    out = []
    for s in slices:
        if isinstance(s, Variable):
            s = s.array
        if isinstance(s, list):
            s = numpy.asarray(s)
            if s.dtype.kind not in "bi" and s.size:
                raise TypeError(
                    f"get_item: list indices must be ints or bools, got {s.dtype}"
                )
            if s.size == 0:
                s = s.astype(numpy.intp)
        out.append(s)
    return tuple(out)


def _is_basic(slices: tuple[Any, ...]) -> bool:
    return not any(isinstance(s, _array_types) for s in slices)


class GetItem(FunctionNode):
    """Pick elements by integers, slices, ``None``, ``...`` or index arrays."""

    def __init__(self, slices: Any) -> None:
        self.slices = _normalize(slices)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        slices = self.slices
        xp = backend.get_array_module(x)
        if xp is not numpy:
            slices = tuple(
                xp.asarray(s) if isinstance(s, numpy.ndarray) else s for s in slices
            )
            self.slices = slices
        try:
            y = x[slices]
        except IndexError as e:
            raise IndexError(f"get_item: {e} (input shape {x.shape})") from None
        return (xp.asarray(y),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return GetItemGrad(self.slices, self._in_shape, self._in_dtype).apply(
            grad_outputs
        )


class GetItemGrad(FunctionNode):
    """Scatter-add gradients back to the indexed positions."""

    def __init__(
        self, slices: tuple[Any, ...], in_shape: tuple[int, ...], in_dtype: Any
    ) -> None:
        self.slices = slices
        self._in_shape = in_shape
        self._in_dtype = in_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, dtype=self._in_dtype)
        if _is_basic(self.slices):
            gx[self.slices] = gy
        elif xp is numpy:
            numpy.add.at(gx, self.slices, gy)
        else:  # pragma: no cover - needs CuPy
            xp.add.at(gx, self.slices, gy)
        return (gx,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        return (get_item(grad_outputs[0], self.slices),)


def get_item(x: Any, slices: Any) -> Variable:
    """Index ``x`` like a NumPy array; the gradient scatters back.

    Args:
        x: Input variable.
        slices: An int, slice, ``None``, ``Ellipsis``, an index array or list,
            or a tuple of those.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> F.get_item(x, (1, slice(0, 2))).array
        array([3., 4.], dtype=float32)
    """
    return GetItem(slices).apply((x,))[0]
