"""GRU links: :class:`StatelessGRU`, :class:`StatefulGRU`, :class:`GRU`."""

from __future__ import annotations

from typing import Any

from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.link import Chain
from kusari.links.connection.linear import Linear
from kusari.links.rnn._state import check_state
from kusari.variable import Variable


class GRUBase(Chain):
    """Holds ``W_r, U_r, W_z, U_z, W, U`` (Linear links, all with biases)."""

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        init: Any = None,
        inner_init: Any = None,
        bias_init: Any = None,
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.W_r = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_r = Linear(
                out_size, out_size, initialW=inner_init, initial_bias=bias_init
            )
            self.W_z = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_z = Linear(
                out_size, out_size, initialW=inner_init, initial_bias=bias_init
            )
            self.W = Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U = Linear(
                out_size, out_size, initialW=inner_init, initial_bias=bias_init
            )


class StatelessGRU(GRUBase):
    """GRU without state: ``forward(h, x)`` returns the next hidden vector::

        r = sigmoid(W_r x + U_r h);  z = sigmoid(W_z x + U_z h)
        h_bar = tanh(W x + U (r * h));  h' = z * h_bar + (1 - z) * h

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> gru = L.StatelessGRU(3, 4)
        >>> gru(np.zeros((2, 4), np.float32), np.zeros((2, 3), np.float32)).shape
        (2, 4)
    """

    def forward(self, h: Any, x: Any) -> Variable:
        r = sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh(self.W(x) + self.U(r * h))
        return z * h_bar + (1.0 - z) * h


class StatefulGRU(GRUBase):
    """GRU holding its hidden vector ``h`` (same equations as :class:`StatelessGRU`).

    With no state yet, ``h' = z * h_bar`` (``h`` taken as zero).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> gru = L.StatefulGRU(3, 4)
        >>> gru(np.zeros((2, 3), np.float32)).shape
        (2, 4)
    """

    h: Any

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        init: Any = None,
        inner_init: Any = None,
        bias_init: Any = 0,
    ) -> None:
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.state_size = out_size
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, h: Any) -> None:
        """Set the hidden state (a Variable)."""
        h = check_state("h", h)
        h.to_device(self.device)
        self.h = h

    def reset_state(self) -> None:
        """Forget the hidden state."""
        self.h = None

    def forward(self, x: Any) -> Variable:
        z = self.W_z(x)
        h_bar = self.W(x)
        if self.h is not None:
            r = sigmoid(self.W_r(x) + self.U_r(self.h))
            z = z + self.U_z(self.h)
            h_bar = h_bar + self.U(r * self.h)
        z = sigmoid(z)
        h_bar = tanh(h_bar)
        if self.h is not None:
            h_new = z * h_bar + (1.0 - z) * self.h
        else:
            h_new = z * h_bar
        self.h = h_new
        return h_new


class GRU(StatefulGRU):
    """Alias of :class:`StatefulGRU` (``forward(x)`` only).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> L.GRU(3, 4)(np.zeros((1, 3), np.float32)).shape
        (1, 4)
    """

    def forward(self, *args: Any) -> Variable:
        n = len(args)
        msg = (
            f"Invalid argument. The length of GRU.forward must be 1. But {n} is given. "
        )
        if n == 0 or n >= 3:
            raise ValueError(msg)
        if n == 2:
            raise ValueError(
                msg + "In Chainer v2, chainer.links.GRU is changed from "
                "stateless to stateful. Use kusari.links.StatelessGRU for a "
                "stateless GRU."
            )
        return super().forward(args[0])
