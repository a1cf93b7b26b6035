"""Embedding lookup ``embed_id`` (with ``ignore_label``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


class EmbedIDFunction(FunctionNode):
    """``y = W[x]``; rows where ``x == ignore_label`` are zero."""

    def __init__(self, ignore_label: Any = None) -> None:
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W"))
        x, w = in_types
        type_check.expect(x.dtype.kind == "i", w.dtype.kind == "f", w.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, W = inputs
        xp = backend.get_array_module(x)
        self._w_shape = W.shape
        n = W.shape[0]
        if self.ignore_label is None:
            if xp is numpy and x.size and (x.min() < 0 or x.max() >= n):
                raise ValueError(
                    f"embed_id: each x must be in [0, {n}), got values in "
                    f"[{x.min()}, {x.max()}]"
                )
            return (W.take(x, axis=0),)
        mask = x == self.ignore_label
        if xp is numpy:
            valid = x[~mask]
            if valid.size and (valid.min() < 0 or valid.max() >= n):
                raise ValueError(
                    f"embed_id: each x must be in [0, {n}) or equal "
                    f"ignore_label={self.ignore_label}"
                )
        y = W.take(xp.where(mask, 0, x), axis=0)
        y[mask] = 0
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (gy,) = grad_outputs
        return None, EmbedIDGrad(self._w_shape, self.ignore_label).apply((x, gy))[0]


class EmbedIDGrad(FunctionNode):
    """``gW[i] = sum of gy rows whose id is i`` (scatter-add)."""

    def __init__(self, w_shape: tuple[int, ...], ignore_label: Any = None) -> None:
        self.w_shape = w_shape
        self.ignore_label = ignore_label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, gy = inputs
        xp = backend.get_array_module(x)
        n, d = self.w_shape
        xf = x.ravel()
        g2 = gy.reshape(-1, d)
        if self.ignore_label is not None:
            keep = xf != self.ignore_label
            xf = xf[keep]
            g2 = g2[keep]
        gW = xp.zeros(self.w_shape, dtype=gy.dtype)
        if xp is numpy:
            if xf.size:
                # Sorting the ids turns the scatter-add into contiguous segment sums.
                order = numpy.argsort(xf, kind="stable")
                xs = xf[order]
                starts = numpy.flatnonzero(numpy.r_[True, xs[1:] != xs[:-1]])
                gW[xs[starts]] = numpy.add.reduceat(g2[order], starts, axis=0)
        else:
            xp.add.at(gW, xf, g2)
        return (gW,)

    def backward(self, indexes: Any, grads: Any) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (ggW,) = grads
        return None, embed_id(x, ggW, self.ignore_label)


def embed_id(x: Any, W: Any, ignore_label: Any = None) -> Variable:
    """Efficient linear function for one-hot input: ``y = W[x]``.

    Args:
        x: int array of IDs (any shape).
        W: Embedding matrix of shape ``(n_vocab, n_units)``.
        ignore_label: IDs equal to it give zero vectors (and no gradient).

    Returns:
        Variable of shape ``x.shape + (n_units,)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> W = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]], np.float32)
        >>> F.embed_id(np.array([2, 1, -1], np.int32), W, ignore_label=-1).array
        array([[2., 2., 2.],
               [1., 1., 1.],
               [0., 0., 0.]], dtype=float32)
    """
    return EmbedIDFunction(ignore_label).apply((x, W))[0]
