"""LSTM with peephole connections (:class:`StatefulPeepholeLSTM`)."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.functions.rnn.slstm import _interleaved_gates
from kusari.link import Chain
from kusari.links.connection.linear import Linear
from kusari.links.rnn._state import zeros_state
from kusari.variable import Variable


class StatefulPeepholeLSTM(Chain):
    """Fully connected LSTM whose gates also look at the cell state::

        a = tanh(A);  i = sigmoid(I + peep_i c);  f = sigmoid(F + peep_f c)
        c' = a i + f c;  o = sigmoid(O + peep_o c');  h' = o tanh(c')

    where ``A, I, F, O`` are the interleaved gates of ``upward(x) + lateral(h)``.

    Args:
        in_size: Input size.
        out_size: Number of units.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> lstm = L.StatefulPeepholeLSTM(3, 4)
        >>> lstm(np.zeros((2, 3), np.float32)).shape
        (2, 4)
    """

    c: Any
    h: Any

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        self.state_size = out_size
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = Linear(out_size, out_size, nobias=True)
            self.peep_f = Linear(out_size, out_size, nobias=True)
            self.peep_o = Linear(out_size, out_size, nobias=True)
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def reset_state(self) -> None:
        """Forget the state (``c`` and ``h`` become None)."""
        self.c = None
        self.h = None

    def forward(self, x: Any) -> Variable:
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            self.c = zeros_state(self, x.shape[0], self.state_size, x.dtype)
        a, i, f, o = _interleaved_gates(lstm_in)
        a = tanh(a)
        i = sigmoid(i + self.peep_i(self.c))
        f = sigmoid(f + self.peep_f(self.c))
        self.c = a * i + f * self.c
        o = sigmoid(o + self.peep_o(self.c))
        self.h = o * tanh(self.c)
        return self.h
