"""Fully connected LSTM links: :class:`LSTM` (stateful) and :class:`StatelessLSTM`."""

from __future__ import annotations

from typing import Any

from kusari import backend, initializers, variable
from kusari.functions.rnn import _ops
from kusari.functions.rnn import lstm as lstm_module
from kusari.link import Chain
from kusari.links.connection.linear import Linear
from kusari.links.rnn._state import check_state, zeros_state
from kusari.utils import size_of_shape


class LSTMBase(Chain):
    """Holds ``upward`` (input to 4H, with bias) and ``lateral`` (H to 4H, no bias)."""

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        lateral_init: Any = None,
        upward_init: Any = None,
        bias_init: Any = None,
        forget_bias_init: Any = None,
    ) -> None:
        if out_size is None:
            out_size, in_size = in_size, None
        if out_size is None:
            raise ValueError(f"{type(self).__name__}: out_size is required")
        super().__init__()
        self.state_size = out_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else forget_bias_init
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size, initialW=0)
            self.lateral = Linear(out_size, 4 * out_size, initialW=0, nobias=True)
            if in_size is not None:
                self._initialize_params()

    def _initialize_params(self) -> None:
        lateral_init = initializers._get_initializer(self.lateral_init)
        upward_init = initializers._get_initializer(self.upward_init)
        bias_init = initializers._get_initializer(self.bias_init)
        forget_bias_init = initializers._get_initializer(self.forget_bias_init)
        H = self.state_size
        # Each H-row block is initialized on its own (fans as for an H x in matrix).
        for k in range(0, 4 * H, H):
            lateral_init(self.lateral.W.array[k : k + H, :])
            upward_init(self.upward.W.array[k : k + H, :])
        b = self.upward.b
        assert b is not None
        a, i, f, o = lstm_module._extract_gates(b.array.reshape(1, 4 * H, 1))
        bias_init(a)
        bias_init(i)
        forget_bias_init(f)
        bias_init(o)

    def _lazy_init(self, x: Any) -> None:
        if self.upward.W.array is None:
            with backend.using_device(self.device):
                self.upward._initialize_params(size_of_shape(x.shape[1:]))
                self._initialize_params()


class StatelessLSTM(LSTMBase):
    """LSTM layer that keeps no state: ``forward(c, h, x) -> (c_new, h_new)``.

    Args:
        in_size: Input size (None: inferred at the first call).
        out_size: Number of units.
        lateral_init, upward_init, bias_init, forget_bias_init: As :class:`LSTM`.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> lstm = L.StatelessLSTM(3, 4)
        >>> c, h = lstm(None, None, np.zeros((2, 3), np.float32))
        >>> c.shape, h.shape
        ((2, 4), (2, 4))
    """

    def forward(
        self, c: Any, h: Any, x: Any
    ) -> tuple[variable.Variable, variable.Variable]:
        self._lazy_init(x)
        lstm_in = self.upward(x)
        if h is not None:
            lstm_in = lstm_in + self.lateral(h)
        if c is None:
            c = zeros_state(self, x.shape[0], self.state_size, x.dtype)
        return lstm_module.lstm(c, lstm_in)


class LSTM(LSTMBase):
    """Fully connected LSTM layer holding its cell state ``c`` and output ``h``.

    ``lstm_in = upward(x) + lateral(h)`` feeds :func:`kusari.functions.lstm`
    (gates interleaved per unit, Chainer's layout). The batch may shrink
    between calls (sort sequences by decreasing length): only the first
    ``len(x)`` rows of the state are updated.

    Args:
        in_size: Input size; None (or a single argument) infers it lazily.
        out_size: Number of units.
        lateral_init: Initializer of ``lateral.W`` (each H-row block).
        upward_init: Initializer of ``upward.W`` (each H-row block).
        bias_init: Initializer of the a, i, o biases (default 0).
        forget_bias_init: Initializer of the forget gate bias (default 1).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> lstm = L.LSTM(3, 4)
        >>> lstm(np.zeros((2, 3), np.float32)).shape
        (2, 4)
        >>> lstm.h.shape, lstm.c.shape
        ((2, 4), (2, 4))
        >>> lstm.reset_state(); lstm.h is None
        True
    """

    c: Any
    h: Any

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        lateral_init: Any = None,
        upward_init: Any = None,
        bias_init: Any = None,
        forget_bias_init: Any = None,
    ) -> None:
        super().__init__(
            in_size, out_size, lateral_init, upward_init, bias_init, forget_bias_init
        )
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.c is not None:
            visitor.visit_variable(self.c)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, c: Any, h: Any) -> None:
        """Set the cell state ``c`` and output ``h`` (Variables)."""
        c = check_state("c", c)
        h = check_state("h", h)
        c.to_device(self.device)
        h.to_device(self.device)
        self.c = c
        self.h = h

    def reset_state(self) -> None:
        """Forget the state (``c`` and ``h`` become None)."""
        self.c = None
        self.h = None

    def forward(self, x: Any) -> variable.Variable:
        self._lazy_init(x)
        batch = x.shape[0]
        lstm_in = self.upward(x)
        h_rest = None
        h = self.h
        if h is not None:
            h_size = h.shape[0]
            if batch == 0:
                h_rest = h
            elif h_size < batch:
                raise TypeError(
                    "The batch size of x must be equal to or less than "
                    "the size of the previous state h."
                )
            elif h_size > batch:
                h_update, h_rest = _ops.split(h, [batch, h_size - batch], 0)
                lstm_in = lstm_in + self.lateral(h_update)
            else:
                lstm_in = lstm_in + self.lateral(h)
        if self.c is None:
            self.c = zeros_state(self, batch, self.state_size, x.dtype)
        self.c, y = lstm_module.lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = _ops.concat([y, h_rest], 0)
        return y
