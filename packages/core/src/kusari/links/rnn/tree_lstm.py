"""Tree-LSTM links: :class:`ChildSumTreeLSTM` and :class:`NaryTreeLSTM`."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.functions.rnn import _ops
from kusari.functions.rnn.tree_lstm import tree_lstm
from kusari.link import Chain
from kusari.links.connection.linear import Linear
from kusari.variable import Variable


def _zero_input(link: Any, cs: tuple[Any, ...], hs: tuple[Any, ...]) -> Variable:
    """Zeros in place of a None ``x``, sized from the first given state."""
    given = [v for v in cs + hs if v is not None]
    if not given:
        raise ValueError("All inputs (cs, hs, x) are None.")
    if link.in_size is None:
        raise ValueError(f"{type(link).__name__}: x is None and in_size is unknown")
    base = given[0]
    return Variable(link.xp.zeros((base.shape[0], link.in_size), dtype=base.dtype))


def _pad_zeros(
    link: Any, vs: tuple[Any, ...], shape: tuple[int, ...], dtype: Any
) -> tuple[Any, ...]:
    if all(v is not None for v in vs):
        return vs
    zero = Variable(link.xp.zeros(shape, dtype=dtype))
    return tuple(zero if v is None else v for v in vs)


class ChildSumTreeLSTM(Chain):
    """Child-Sum Tree-LSTM (Tai et al., 2015) for any number of children.

    ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` returns ``(c, h)``. The
    a, i, o gates see the sum of the children's ``h``; each child gets its
    own forget gate ``f_k = W_x^f x + W_h_f h_k``. ``None`` children count as
    zeros (a None ``x`` too); with no children the cell is
    ``c = sigmoid(i) tanh(a)``.

    Args:
        in_size: Input size (None: lazy).
        out_size: Number of units.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> tree = L.ChildSumTreeLSTM(3, 4)
        >>> c = h = np.zeros((2, 4), np.float32)
        >>> c_new, h_new = tree(c, c, h, h, np.zeros((2, 3), np.float32))
        >>> c_new.shape, h_new.shape
        ((2, 4), (2, 4))
    """

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        self.in_size = in_size
        self.state_size = out_size
        with self.init_scope():
            self.W_x = Linear(in_size, 4 * out_size)
            self.W_h_aio = Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = Linear(out_size, out_size, nobias=True)

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        n = (len(cshsx) - 1) // 2
        cs, hs, x = cshsx[:n], cshsx[n : 2 * n], cshsx[-1]
        if x is None:
            x = _zero_input(self, cs, hs)
        H = self.state_size
        wx = self.W_x(x)
        wx_aio, wx_f = _ops.split(wx, [3 * H, H], 1)
        if n == 0 or all(h is None for h in hs) and all(c is None for c in cs):
            a, i, o = _ops.split(wx_aio, [H, H, H], 1)
            c = sigmoid(i) * tanh(a)
            h = sigmoid(o) * tanh(c)
            return c, h
        shape = (x.shape[0], H)
        hs = _pad_zeros(self, hs, shape, x.dtype)
        cs = _pad_zeros(self, cs, shape, x.dtype)
        h_sum = hs[0]
        for h in hs[1:]:
            h_sum = h_sum + h
        aio_in = self.W_h_aio(h_sum) + wx_aio
        fs = _ops.split(self.W_h_f(_ops.concat(list(hs), 0)), [x.shape[0]] * n, 0)
        f_in = _ops.concat([f + wx_f for f in fs], 1)
        return tree_lstm(*(tuple(cs) + (_ops.concat([aio_in, f_in], 1),)))


class NaryTreeLSTM(Chain):
    """N-ary Tree-LSTM (Tai et al., 2015, with Bowman et al.'s per-child forget gates).

    ``forward(c_1, ..., c_N, h_1, ..., h_N, x)`` returns ``(c, h)``, where
    the gate input is ``W_x x + W_h1 h_1 + ... + W_hN h_N`` (one Linear per
    child, as in Chainer); ``None`` children (and a None ``x``) count as
    zeros.

    Args:
        in_size: Input size (None: lazy).
        out_size: Number of units.
        n_ary: Number of children N.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> tree = L.NaryTreeLSTM(3, 4, n_ary=2)
        >>> c = h = np.zeros((2, 4), np.float32)
        >>> c_new, h_new = tree(c, c, h, h, np.zeros((2, 3), np.float32))
        >>> c_new.shape
        (2, 4)
    """

    def __init__(self, in_size: int | None, out_size: int, n_ary: int = 2) -> None:
        if n_ary < 1:
            raise ValueError(f"NaryTreeLSTM: n_ary must be >= 1, got {n_ary}")
        super().__init__()
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary
        with self.init_scope():
            self.W_x = Linear(in_size, (3 + n_ary) * out_size)
            for i in range(1, n_ary + 1):
                setattr(
                    self,
                    f"W_h{i}",
                    Linear(out_size, (3 + n_ary) * out_size, nobias=True),
                )

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        n = self.n_ary
        if len(cshsx) != 2 * n + 1:
            raise ValueError(
                f"NaryTreeLSTM: expected {2 * n + 1} arguments "
                f"(c_1..c_{n}, h_1..h_{n}, x), got {len(cshsx)}"
            )
        cs, hs, x = cshsx[:n], cshsx[n : 2 * n], cshsx[-1]
        if x is None:
            x = _zero_input(self, cs, hs)
        shape = (x.shape[0], self.state_size)
        lstm_in = self.W_x(x)
        for i, h in enumerate(hs, start=1):
            if h is not None:
                lstm_in = lstm_in + getattr(self, f"W_h{i}")(h)
        cs = _pad_zeros(self, cs, shape, x.dtype)
        return tree_lstm(*(tuple(cs) + (lstm_in,)))
