"""Small array ops the rnn family composes with (kept private to the family).

They are differentiable to any order: each backward is built from these same
ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari import backend, configuration
from kusari.function_node import FunctionNode
from kusari.variable import Variable


class Concat(FunctionNode):
    """Concatenate along ``axis``; backward splits the gradient."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(inputs[0])
        self.sections = [x.shape[self.axis] for x in inputs]
        return (xp.concatenate(inputs, axis=self.axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        gxs = split(gy, self.sections, self.axis)
        return tuple(gxs[i] for i in indexes)


class Split(FunctionNode):
    """Split along ``axis`` into pieces of the given sizes."""

    def __init__(self, sections: Sequence[int], axis: int) -> None:
        self.sections = list(sections)
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self.shape = x.shape
        self.dtype = x.dtype
        ax = self.axis
        out = []
        start = 0
        for n in self.sections:
            idx = [slice(None)] * x.ndim
            idx[ax] = slice(start, start + n)
            out.append(x[tuple(idx)])
            start += n
        return tuple(out)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gys = []
        xp = None
        for g in grad_outputs:
            if g is not None:
                xp = backend.get_array_module(g.array)
                break
        for g, n in zip(grad_outputs, self.sections):
            if g is None:
                shape = list(self.shape)
                shape[self.axis] = n
                g = Variable(xp.zeros(tuple(shape), dtype=self.dtype))  # type: ignore[union-attr]
            gys.append(g)
        if len(gys) == 1:
            return (gys[0],)
        return (concat(gys, self.axis),)


class Take(FunctionNode):
    """``x.take(perm, axis)`` for a permutation ``perm``; backward uses the inverse."""

    def __init__(self, perm: Any, inv: Any, axis: int) -> None:
        self.perm = perm
        self.inv = inv
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        perm = self.perm if xp is numpy else xp.asarray(self.perm)
        return (xp.take(x, perm, axis=self.axis),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        return Take(self.inv, self.perm, self.axis).apply((gy,))


def concat(xs: Sequence[Any], axis: int = 0) -> Variable:
    if len(xs) == 1 and isinstance(xs[0], Variable):
        return xs[0]
    return Concat(axis).apply(xs)[0]


def split(x: Any, sections: Sequence[int], axis: int = 0) -> tuple[Variable, ...]:
    if len(sections) == 1 and isinstance(x, Variable):
        return (x,)
    return Split(sections, axis).apply((x,))


def permute(x: Any, perm: Any, axis: int = 0) -> Variable:
    """Reorder ``x`` along ``axis`` by the permutation ``perm`` (NumPy int array)."""
    inv = numpy.empty_like(perm)
    inv[perm] = numpy.arange(len(perm), dtype=perm.dtype)
    return Take(perm, inv, axis).apply((x,))[0]


def stack(xs: Sequence[Any]) -> Variable:
    """Stack along a new first axis."""
    from kusari.functions.array.reshape import reshape

    return concat([reshape(x, (1,) + tuple(x.shape)) for x in xs], 0)


class _Dropout(FunctionNode):
    def __init__(self, ratio: float) -> None:
        self.ratio = ratio
        self.mask: Any = None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        xp = backend.get_array_module(x)
        if self.mask is None:
            scale = x.dtype.type(1.0 / (1.0 - self.ratio))
            keep = xp.random.rand(*x.shape) >= self.ratio
            self.mask = keep * scale
            self.mask = self.mask.astype(x.dtype, copy=False)
        return (x * self.mask,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        node = _Dropout(self.ratio)
        node.mask = self.mask
        return node.apply((gy,))


def dropout(x: Any, ratio: float) -> Any:
    """Dropout respecting ``config.train`` (identity in test mode or ratio 0)."""
    if not configuration.config.train or ratio == 0:
        return x
    if not 0.0 <= ratio < 1.0:
        raise ValueError(f"dropout: ratio must be in [0, 1), got {ratio}")
    return _Dropout(ratio).apply((x,))[0]
