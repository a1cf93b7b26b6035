"""``split_axis``: split an array into views along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari import backend
from kusari.configuration import config
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class SplitAxis(FunctionNode):
    """Split along ``axis`` into equal sections or at the given indices."""

    def __init__(self, indices_or_sections: Any, axis: int) -> None:
        if isinstance(indices_or_sections, numpy.ndarray) and (
            indices_or_sections.ndim == 0
        ):
            # A 0-d array is a number of sections, as in Chainer.
            indices_or_sections = indices_or_sections[()]
        if isinstance(indices_or_sections, (int, numpy.integer)) and not isinstance(
            indices_or_sections, bool
        ):
            if indices_or_sections <= 0:
                raise ValueError(
                    "split_axis: the number of sections must be positive, "
                    f"got {indices_or_sections}"
                )
            self.sections: int | None = int(indices_or_sections)
            self.indices: tuple[int, ...] | None = None
        elif isinstance(indices_or_sections, (Sequence, numpy.ndarray)):
            ios = indices_or_sections
            if isinstance(ios, numpy.ndarray) and ios.ndim >= 2:
                raise TypeError(
                    "indices_or_sections must be 1-D sequence "
                    f"(split_axis got an array of shape {ios.shape})"
                )
            # Chainer's words; floats would otherwise be truncated silently.
            for i in ios:
                if not isinstance(i, (int, numpy.integer)) or isinstance(i, bool):
                    raise TypeError(
                        f"indices_or_sections must be integers (split_axis got {i!r})"
                    )
            self.sections = None
            self.indices = tuple(int(i) for i in ios)
            # Unsorted split points give overlapping (numpy: empty) pieces;
            # debug mode reports them, as Chainer's does.
            if config.debug and any(
                p > n for p, n in zip(self.indices, self.indices[1:])
            ):
                raise ValueError(
                    "indices_or_sections must be sorted (split_axis got "
                    f"{list(self.indices)})"
                )
        else:
            raise TypeError(
                "indices_or_sections must be integer or 1-D array.\n"
                f"Actual: {type(indices_or_sections)} (split_axis)"
            )
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(
                f"split_axis: axis must be an int, got {type(axis).__name__}"
            )
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x = in_types[0]
        type_check.expect(x.ndim > 0, -x.ndim <= self.axis, self.axis < x.ndim)
        if self.sections is not None:
            ndim = type_check.eval(x.ndim)
            type_check.expect(x.shape[self.axis % ndim] % self.sections == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        axis = self.axis % x.ndim
        n = x.shape[axis]
        if self.sections is not None:
            step = n // self.sections
            bounds = list(range(0, n + 1, step)) if step else [0] * (self.sections + 1)
        else:
            bounds = [0, *self.indices, n]  # type: ignore[misc]
        outs = []
        spans = []
        index: list[Any] = [slice(None)] * x.ndim
        for start, stop in zip(bounds[:-1], bounds[1:], strict=False):
            start = min(max(start + n if start < 0 else start, 0), n)
            stop = min(max(stop + n if stop < 0 else stop, 0), n)
            index[axis] = slice(start, max(start, stop))
            spans.append((start, max(start, stop)))
            outs.append(x[tuple(index)])
        # numpy.split allows decreasing indices (overlapping or empty pieces);
        # then backward sums padded pieces instead of concatenating them.
        self._spans = spans
        self._tiles = (
            spans[0][0] == 0
            and spans[-1][1] == n
            and all(a[1] == b[0] for a, b in zip(spans[:-1], spans[1:], strict=True))
        )
        self._axis = axis
        self._in_shape = x.shape
        self._dtype = x.dtype
        self._xp = xp
        self._out_shapes = [o.shape for o in outs]
        return tuple(outs)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        from kusari.functions.array.concat import concat

        gys = []
        for gy, shape in zip(grad_outputs, self._out_shapes, strict=False):
            if gy is None:
                gy = Variable(
                    self._xp.zeros(shape, dtype=self._dtype), requires_grad=False
                )
            gys.append(gy)
        if self._tiles:
            return (concat(gys, self._axis),)
        from kusari.functions.array.pad import pad

        n = self._in_shape[self._axis]
        total = None
        for g, (start, stop) in zip(gys, self._spans, strict=True):
            if start == stop:
                continue
            widths = [(0, 0)] * len(self._in_shape)
            widths[self._axis] = (start, n - stop)
            piece = pad(g, widths, "constant")
            total = piece if total is None else total + piece
        if total is None:
            total = Variable(
                self._xp.zeros(self._in_shape, dtype=self._dtype), requires_grad=False
            )
        return (total,)


def split_axis(
    x: Any, indices_or_sections: Any, axis: int, force_tuple: bool = True
) -> Any:
    """Split ``x`` along ``axis`` (the outputs are views).

    Args:
        x: Input variable.
        indices_or_sections: An int ``n`` (``n`` equal sections; the axis
            length must be divisible by it) or a sequence of split points
            (as ``numpy.split``).
        axis: The axis to split.
        force_tuple: When False and there is one output, return it alone.

    Returns:
        A tuple of Variables (or one Variable, see ``force_tuple``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> [y.shape for y in F.split_axis(np.zeros((2, 6), np.float32), [1, 4], 1)]
        [(2, 1), (2, 3), (2, 2)]
    """
    ys = SplitAxis(indices_or_sections, axis).apply((x,))
    if not force_tuple and len(ys) == 1:
        return ys[0]
    return ys
