"""S-LSTM: an LSTM unit merging two child states (``F.slstm``)."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.functions.array.get_item import get_item
from kusari.functions.array.reshape import reshape
from kusari.utils import type_check
from kusari.variable import Variable


def _interleaved_gates(x: Any) -> list[Variable]:
    shape = tuple(x.shape)
    r = reshape(x, (shape[0], shape[1] // 4, 4) + shape[2:])
    return [get_item(r, (slice(None), slice(None), g)) for g in range(4)]


def _check(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> None:
    shapes = [tuple(v.shape) for v in (c_prev1, c_prev2, x1, x2)]
    dtypes = [v.dtype for v in (c_prev1, c_prev2, x1, x2)]
    c1, c2, s1, s2 = shapes
    ok = (
        dtypes[0].kind == "f"
        and len(set(dtypes)) == 1
        and len(c1) >= 2
        and c1 == c2
        and s1 == s2
        and len(s1) == len(c1)
        and s1[0] == c1[0]
        and s1[1] == 4 * c1[1]
        and s1[2:] == c1[2:]
    )
    if not ok:
        raise type_check.InvalidType(
            "c_prev1.shape == c_prev2.shape, x1.shape == x2.shape, "
            "x1.shape[0] == c_prev1.shape[0], x1.shape[1] == 4 * c_prev1.shape[1], "
            "same float dtype",
            f"c_prev1 {c1} {dtypes[0]}, c_prev2 {c2} {dtypes[1]}, "
            f"x1 {s1} {dtypes[2]}, x2 {s2} {dtypes[3]}",
        )


def slstm(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> tuple[Variable, Variable]:
    """S-LSTM unit: an LSTM cell with two children (Zhu et al., 2015).

    ``x1`` and ``x2`` (B, 4H) hold the gate pre-activations from each child,
    interleaved per unit like :func:`lstm` (``a, i, f, o``). With ``s`` the
    sigmoid::

        c = tanh(a1) s(i1) + tanh(a2) s(i2) + s(f1) c_prev1 + s(f2) c_prev2
        h = s(o1 + o2) tanh(c)

    This is what Chainer v7 computes (its docstring writes the first terms
    as ``tanh(a1 + a2) s(i1 + i2)``, which its code does not do); models
    trained with Chainer give the same results here.

    Args:
        c_prev1: Cell state of the first child, (B, H, ...).
        c_prev2: Cell state of the second child, (B, H, ...).
        x1: Gate pre-activations from the first child, (B, 4H, ...).
        x2: Gate pre-activations from the second child, (B, 4H, ...).

    Returns:
        ``(c, h)``, each (B, H, ...).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> c = np.zeros((2, 3), np.float32)
        >>> x = np.zeros((2, 12), np.float32)
        >>> c_new, h = F.slstm(c, c, x, x)
        >>> c_new.shape, h.shape
        ((2, 3), (2, 3))
    """
    _check(c_prev1, c_prev2, x1, x2)
    a1, i1, f1, o1 = _interleaved_gates(x1)
    a2, i2, f2, o2 = _interleaved_gates(x2)
    c = (
        tanh(a1) * sigmoid(i1)
        + tanh(a2) * sigmoid(i2)
        + sigmoid(f1) * c_prev1
        + sigmoid(f2) * c_prev2
    )
    h = sigmoid(o1 + o2) * tanh(c)
    return c, h
