"""Stacked (bi)directional LSTMs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari.functions.rnn.n_step_rnn import _check_kwargs, n_step_base
from kusari.variable import Variable


def n_step_lstm_base(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    use_bi_direction: bool,
    **kwargs: Any,
) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Shared body of :func:`n_step_lstm` and :func:`n_step_bilstm`."""
    name = "n_step_bilstm" if use_bi_direction else "n_step_lstm"
    _check_kwargs(name, kwargs)
    if cx is None:
        raise ValueError(f"{name}: cx is required")
    hy, cy, ys = n_step_base(
        name, "lstm", n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction
    )
    assert cy is not None
    return hy, cy, ys


def n_step_lstm(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    **kwargs: Any,
) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked uni-directional LSTM over sequences.

    Per layer and time step (``W0..W3`` act on the input, ``W4..W7`` on the
    previous hidden state)::

        i = sigmoid(W0 x + W4 h + b0 + b4)
        f = sigmoid(W1 x + W5 h + b1 + b5)
        a = tanh(W2 x + W6 h + b2 + b6)
        o = sigmoid(W3 x + W7 h + b3 + b7)
        c = f c_prev + i a;  h = o tanh(c)

    The input projection of all time steps is one matrix product; only the
    recurrent part loops over time.

    Args:
        n_layers: Number of layers.
        dropout_ratio: Dropout applied to the input of every layer but the first
            (training mode only).
        hx: Initial hidden states ``(n_layers, B, N)``.
        cx: Initial cell states ``(n_layers, B, N)``.
        ws: ``ws[l]`` lists the 8 weight matrices of layer ``l``: ``W0..W3`` of
            shape ``(N, I)`` (``I = N`` above the first layer), ``W4..W7`` of
            shape ``(N, N)``.
        bs: ``bs[l]`` lists the 8 bias vectors of layer ``l``, each ``(N,)``.
        xs: Time-major list, ``xs[t]`` of shape ``(B_t, I)`` with ``B_t``
            non-increasing (sequences sorted by decreasing length, transposed
            with ``transpose_sequence``).

    Returns:
        ``(hy, cy, ys)``: final hidden and cell states like ``hx``/``cx`` and a
        tuple of the last layer's outputs ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> ws = [[np.ones((2, 3), np.float32)] * 4 + [np.ones((2, 2), np.float32)] * 4]
        >>> bs = [[np.zeros(2, np.float32)] * 8]
        >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
        >>> h0 = np.zeros((1, 2, 2), np.float32)
        >>> hy, cy, ys = F.n_step_lstm(1, 0.0, h0, h0, ws, bs, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((1, 2, 2), (1, 2, 2), [(2, 2), (1, 2)])
    """
    return n_step_lstm_base(
        n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction=False, **kwargs
    )


def n_step_bilstm(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    **kwargs: Any,
) -> tuple[Variable, Variable, tuple[Variable, ...]]:
    """Stacked bi-directional LSTM over sequences.

    Like :func:`n_step_lstm` with a forward and a backward LSTM per layer:
    ``hx``/``cx`` have shape ``(2 * n_layers, B, N)``, ``ws[2 l + d]`` and
    ``bs[2 l + d]`` belong to layer ``l``, direction ``d`` (0 forward, 1
    backward), layers above the first take ``2N`` inputs and ``ys[t]`` has
    shape ``(B_t, 2N)`` (forward half first).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> w = [np.ones((2, 3), np.float32)] * 4 + [np.ones((2, 2), np.float32)] * 4
        >>> b = [np.zeros(2, np.float32)] * 8
        >>> xs = [np.zeros((1, 3), np.float32)] * 3
        >>> h0 = np.zeros((2, 1, 2), np.float32)
        >>> hy, cy, ys = F.n_step_bilstm(1, 0.0, h0, h0, [w, w], [b, b], xs)
        >>> hy.shape, ys[0].shape
        ((2, 1, 2), (1, 4))
    """
    return n_step_lstm_base(
        n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction=True, **kwargs
    )
