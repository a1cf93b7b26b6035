"""Helpers shared by activations with a parameter input (``prelu``, ``swish``).

The parameter ``W`` matches ``x.shape[1:1 + W.ndim]`` and is broadcast over the
batch axis and the trailing axes.
"""

from __future__ import annotations

from typing import Any

from kusari.functions.array.broadcast import broadcast_to
from kusari.functions.array.reshape import reshape
from kusari.functions.math.sum import sum_to
from kusari.utils import type_check
from kusari.variable import Variable


def check_param(in_types: Any, names: tuple[str, str]) -> None:
    """Type check of ``(x, W)`` with ``W.shape == x.shape[1:1 + W.ndim]``."""
    type_check._argname(in_types, names)
    x_type, w_type = in_types
    type_check.expect(
        x_type.dtype.kind == "f",
        w_type.dtype == x_type.dtype,
        x_type.ndim >= w_type.ndim + 1,
    )
    w_ndim = type_check.eval(w_type.ndim)
    type_check.expect(x_type.shape[1 : 1 + w_ndim] == w_type.shape)


def param_shape(x_shape: tuple[int, ...], w_shape: tuple[int, ...]) -> tuple[int, ...]:
    """``W``'s shape padded with ones to ``x``'s ndim."""
    return (1,) + tuple(w_shape) + (1,) * (len(x_shape) - 1 - len(w_shape))


def expand_param(w: Any, x_shape: tuple[int, ...]) -> Any:
    """An array ``W`` reshaped to broadcast against ``x``."""
    return w.reshape(param_shape(x_shape, w.shape))


def broadcast_param(w: Variable, x_shape: tuple[int, ...]) -> Variable:
    """A Variable ``W`` broadcast to ``x_shape`` (differentiably)."""
    return broadcast_to(reshape(w, param_shape(x_shape, w.shape)), x_shape)


def reduce_to_param(g: Variable, w_shape: tuple[int, ...]) -> Variable:
    """The adjoint of :func:`broadcast_param`: sum ``g`` down to ``w_shape``."""
    return reshape(sum_to(g, param_shape(g.shape, w_shape)), w_shape)
