"""Minimal gated unit links: :class:`StatelessMGU`, :class:`StatefulMGU`."""

from __future__ import annotations

from typing import Any

import kusari
from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.functions.rnn import _ops
from kusari.link import Chain
from kusari.links.connection.linear import Linear
from kusari.links.rnn._state import check_state, zeros_state
from kusari.variable import Variable


class MGUBase(Chain):
    """Holds ``W_f`` and ``W_h``, each Linear(in_size + out_size, out_size)."""

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__()
        with self.init_scope():
            self.W_f = Linear(in_size + out_size, out_size)
            self.W_h = Linear(in_size + out_size, out_size)

    def _call_mgu(self, h: Any, x: Any) -> Variable:
        f = sigmoid(self.W_f(_ops.concat([h, x], 1)))
        h_bar = tanh(self.W_h(_ops.concat([f * h, x], 1)))
        return f * h_bar + (1.0 - f) * h


class StatelessMGU(MGUBase):
    """MGU without state: ``forward(h, x)``::

        f = sigmoid(W_f [h, x]);  h_bar = tanh(W_h [f * h, x])
        h' = f * h_bar + (1 - f) * h

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> mgu = L.StatelessMGU(3, 4)
        >>> mgu(np.zeros((2, 4), np.float32), np.zeros((2, 3), np.float32)).shape
        (2, 4)
    """

    def forward(self, h: Any, x: Any) -> Variable:
        return self._call_mgu(h, x)


class StatefulMGU(MGUBase):
    """MGU holding its hidden vector ``h`` (zeros before the first call).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> mgu = L.StatefulMGU(3, 4)
        >>> mgu(np.zeros((2, 3), np.float32)).shape
        (2, 4)
    """

    h: Any

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self._state_size = out_size
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
        h = self.h
        if h is None:
            h = zeros_state(self, x.shape[0], self._state_size, kusari.get_dtype())
        self.h = self._call_mgu(h, x)
        return self.h
