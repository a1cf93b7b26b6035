"""Tree-LSTM unit with one forget gate per child (``F.tree_lstm``)."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.functions.array.get_item import get_item
from kusari.functions.array.reshape import reshape
from kusari.utils import type_check
from kusari.variable import Variable


def _check(cs: tuple[Any, ...], x: Any) -> None:
    if len(cs) < 1:
        raise type_check.InvalidType("in_types.size() >= 2", "in_types.size() == 1")
    n = len(cs)
    xs = tuple(x.shape)
    for k, c in enumerate(cs):
        s = tuple(c.shape)
        ok = (
            c.dtype.kind == "f"
            and c.dtype == x.dtype
            and len(s) >= 2
            and len(s) == len(xs)
            and xs[0] == s[0]
            and xs[1] == (3 + n) * s[1]
            and xs[2:] == s[2:]
        )
        if not ok:
            raise type_check.InvalidType(
                f"x.shape[0] == c{k}.shape[0], x.shape[1] == {3 + n} * c{k}.shape[1], "
                "same float dtype",
                f"c{k} {s} {c.dtype}, x {xs} {x.dtype}",
            )


def tree_lstm(*inputs: Any) -> tuple[Variable, Variable]:
    """Tree-LSTM unit for N children (N-ary and child-sum Tree-LSTMs).

    ``inputs = (c_1, ..., c_N, x)``. ``x`` (B, (3 + N) H) is split into
    *contiguous* blocks ``a, i, o, f_1, ..., f_N`` of H columns each (unlike
    :func:`lstm`, whose gates are interleaved). With ``s`` the sigmoid::

        c = tanh(a) s(i) + sum_k s(f_k) c_k
        h = s(o) tanh(c)

    Args:
        inputs: The children's cell states ``c_k`` (B, H, ...) followed by ``x``.

    Returns:
        ``(c, h)``, each (B, H, ...).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> c1 = c2 = np.zeros((4, 3), np.float32)
        >>> c, h = F.tree_lstm(c1, c2, np.zeros((4, 15), np.float32))
        >>> c.shape, h.shape
        ((4, 3), (4, 3))
    """
    cs, x = inputs[:-1], inputs[-1]
    _check(cs, x)
    n = len(cs)
    shape = tuple(x.shape)
    r = reshape(x, (shape[0], 3 + n, shape[1] // (3 + n)) + shape[2:])
    gates = [get_item(r, (slice(None), k)) for k in range(3 + n)]
    a, i, o = gates[:3]
    c = tanh(a) * sigmoid(i)
    for f, ck in zip(gates[3:], cs):
        c = c + sigmoid(f) * ck
    h = sigmoid(o) * tanh(c)
    return c, h
