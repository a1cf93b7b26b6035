"""``transpose_sequence``: batch-major sequences to time-major and back."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _time_major_index(lengths: list[int], n_out: int) -> tuple[Any, list[int]]:
    """The gather order and output lengths of a transpose of ``lengths``.

    ``lengths`` is non-increasing; output ``t`` (of ``n_out``) holds row ``t``
    of every sequence longer than ``t`` (none past the longest: empty).
    """
    starts = numpy.concatenate([[0], numpy.cumsum(lengths)[:-1]]).astype(numpy.intp)
    out_lengths = [sum(1 for n in lengths if n > t) for t in range(n_out)]
    order = (
        numpy.concatenate([starts[:k] + t for t, k in enumerate(out_lengths)]).astype(
            numpy.intp
        )
        if out_lengths
        else numpy.zeros(0, numpy.intp)
    )
    return order, out_lengths


class TransposeSequence(FunctionNode):
    """Transpose a list of sorted variable-length sequences.

    Args:
        length: Number of outputs; by default the length of the first
            (longest) input. The backward pass asks for one output per input
            of the forward one, so that sequences of length 0 at the end of
            the list get their (empty) gradients back.
    """

    def __init__(self, length: int | None = None) -> None:
        self._length = length

    def check_type_forward(self, in_types: Any) -> None:
        n = type_check.eval(in_types.size())
        for i in range(1, n):
            p, x = in_types[i - 1], in_types[i]
            type_check.expect(
                p.ndim >= 1,
                x.ndim == p.ndim,
                p.shape[0] >= x.shape[0],
                p.shape[1:] == x.shape[1:],
                p.dtype == x.dtype,
            )
        if n:
            type_check.expect(in_types[0].ndim >= 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if not inputs:
            return ()
        xp = backend.get_array_module(*inputs)
        self._n_in = len(inputs)
        lengths = [len(x) for x in inputs]
        n_out = lengths[0] if self._length is None else self._length
        order, out_lengths = _time_major_index(lengths, n_out)
        flat = xp.concatenate(inputs, axis=0)
        ys = flat[xp.asarray(order)]
        self._dtype = inputs[0].dtype
        self._row = inputs[0].shape[1:]
        self._xp = xp
        self._out_lengths = out_lengths
        if not out_lengths:
            return ()  # every sequence is empty: no time steps
        points = numpy.cumsum(out_lengths)[:-1].tolist()
        return tuple(xp.split(ys, points)) if points else (ys,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gys = []
        for i, g in enumerate(grad_outputs):
            if g is None:
                g = Variable(
                    self._xp.zeros(
                        (self._out_lengths[i],) + self._row, dtype=self._dtype
                    ),
                    requires_grad=False,
                )
            gys.append(g)
        return TransposeSequence(self._n_in).apply(tuple(gys))


def transpose_sequence(xs: Any) -> tuple[Variable, ...]:
    """Transpose a list of variable-length sequences.

    ``xs[i]`` has shape ``(L_i, ...)`` with ``L_0 >= L_1 >= ...``; output
    ``t`` stacks ``xs[i][t]`` of every sequence with ``L_i > t``, so the
    result is again a sorted list of sequences (the transpose is its own
    inverse).

    Args:
        xs: A list of variables sorted by decreasing length.

    Returns:
        A tuple of Variables, one per time step.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> xs = [np.array([1, 2, 3], np.float32), np.array([4, 5], np.float32)]
        >>> [y.array.tolist() for y in F.transpose_sequence(xs)]
        [[1.0, 4.0], [2.0, 5.0], [3.0]]
    """
    return TransposeSequence().apply(tuple(xs))
