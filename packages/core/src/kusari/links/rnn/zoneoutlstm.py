"""LSTM with zoneout on its states (:class:`StatefulZoneoutLSTM`)."""

from __future__ import annotations

from typing import Any

from kusari import backend, configuration
from kusari.function_node import FunctionNode
from kusari.functions.activation.sigmoid import sigmoid
from kusari.functions.activation.tanh import tanh
from kusari.functions.rnn.slstm import _interleaved_gates
from kusari.link import Chain
from kusari.links.connection.linear import Linear
from kusari.links.rnn._state import check_state, zeros_state
from kusari.variable import Variable


class _Zoneout(FunctionNode):
    """``h * (1 - m) + x * m`` with ``m ~ Bernoulli(1 - ratio)``."""

    def __init__(self, ratio: float, flag_x: Any = None) -> None:
        self.ratio = ratio
        self.flag_x = flag_x

    @property
    def flag_h(self) -> Any:
        """Where the old state is kept: the complement of ``flag_x``, as on
        Chainer's Zoneout node (None before the forward pass)."""
        return None if self.flag_x is None else 1 - self.flag_x

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, x = inputs
        xp = backend.get_array_module(x)
        if self.flag_x is None:
            self.flag_x = (xp.random.rand(*x.shape) >= self.ratio).astype(x.dtype)
        return (h + (x - h) * self.flag_x,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_outputs
        ret = []
        for k in indexes:
            if k == 0:
                ret.append(gy * (1.0 - self.flag_x))
            else:
                ret.append(gy * self.flag_x)
        return tuple(ret)


def _zoneout(h: Any, x: Any, ratio: float) -> Any:
    if not configuration.config.train:
        return x
    return _Zoneout(ratio).apply((h, x))[0]


class StatefulZoneoutLSTM(Chain):
    """LSTM whose cell state and output keep their old value with probability
    ``c_ratio``/``h_ratio`` (zoneout) during training; in test mode it is a
    plain LSTM.

    Args:
        in_size: Input size.
        out_size: Number of units.
        c_ratio: Zoneout ratio of the cell state.
        h_ratio: Zoneout ratio of the output.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> lstm = L.StatefulZoneoutLSTM(3, 4)
        >>> lstm(np.zeros((2, 3), np.float32)).shape
        (2, 4)
    """

    c: Any
    h: Any

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        c_ratio: float = 0.5,
        h_ratio: float = 0.5,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            if "train" in kwargs:
                raise ValueError(
                    "StatefulZoneoutLSTM: the train argument is not supported "
                    "anymore; use kusari.using_config('train', ...)"
                )
            raise TypeError(
                f"StatefulZoneoutLSTM: unexpected arguments {sorted(kwargs)}"
            )
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
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

    def forward(self, x: Any) -> Variable:
        lstm_in = self.upward(x)
        if self.h is not None:
            lstm_in = lstm_in + self.lateral(self.h)
        else:
            self.h = zeros_state(self, x.shape[0], self.state_size, x.dtype)
        if self.c is None:
            self.c = zeros_state(self, x.shape[0], self.state_size, x.dtype)
        a, i, f, o = _interleaved_gates(lstm_in)
        c_tmp = tanh(a) * sigmoid(i) + sigmoid(f) * self.c
        self.c = _zoneout(self.c, c_tmp, self.c_ratio)
        self.h = _zoneout(self.h, sigmoid(o) * tanh(c_tmp), self.h_ratio)
        return self.h
