"""Small helpers of the communication functions."""

from __future__ import annotations

from typing import Any

import numpy

import kusari
from kusari import backend


def dummy_variable(xp: Any = numpy) -> kusari.Variable:
    """An empty variable that requires a gradient: it keeps a function that
    has no real input on the graph, so that its backward (which talks to
    another rank) runs."""
    return kusari.Variable(xp.zeros((0,), dtype=numpy.float32))


def delegate_array(xp: Any = numpy) -> Any:
    """The output of a function whose real result lives on another rank.

    A 0-d array rather than Chainer's empty one: kusari's ``backward()``
    seeds only scalars, and ``delegate.backward()`` must work as in
    ChainerMN.
    """
    return xp.zeros((), dtype=numpy.float32)


def grad_arrays(grad_outputs: Any, like: Any) -> list[Any]:
    """Arrays of ``grad_outputs``, zeros (shaped as ``like``) where None."""
    out = []
    for gy, y in zip(grad_outputs, like, strict=True):
        if gy is None:
            out.append(backend.get_array_module(y).zeros(y.shape, y.dtype))
        else:
            out.append(gy.array)
    return out


def as_variables(arrays: Any) -> tuple[Any, ...]:
    return tuple(None if a is None else kusari.Variable(a) for a in arrays)
