"""Stacked (bi)directional GRUs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari.functions.rnn.n_step_rnn import _check_kwargs, n_step_base
from kusari.variable import Variable


def n_step_gru_base(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    use_bi_direction: bool,
    **kwargs: Any,
) -> tuple[Variable, tuple[Variable, ...]]:
    """Shared body of :func:`n_step_gru` and :func:`n_step_bigru`."""
    name = "n_step_bigru" if use_bi_direction else "n_step_gru"
    _check_kwargs(name, kwargs)
    hy, _, ys = n_step_base(
        name, "gru", n_layers, dropout_ratio, hx, None, ws, bs, xs, use_bi_direction
    )
    return hy, ys


def n_step_gru(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    **kwargs: Any,
) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked uni-directional GRU over sequences.

    Per layer and time step::

        r = sigmoid(W0 x + W3 h + b0 + b3)
        z = sigmoid(W1 x + W4 h + b1 + b4)
        n = tanh(W2 x + b2 + r (W5 h + b5))
        h = (1 - z) n + z h_prev

    Args:
        n_layers: Number of layers.
        dropout_ratio: Dropout applied to the input of every layer but the first
            (training mode only).
        hx: Initial hidden states ``(n_layers, B, N)``.
        ws: ``ws[l]`` lists 6 weight matrices (``W0..W2``: ``(N, I)``,
            ``W3..W5``: ``(N, N)``).
        bs: ``bs[l]`` lists 6 bias vectors ``(N,)``.
        xs: Time-major list, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` non-increasing.

    Returns:
        ``(hy, ys)``: final hidden states and the last layer's outputs per step.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> ws = [[np.ones((2, 3), np.float32)] * 3 + [np.ones((2, 2), np.float32)] * 3]
        >>> bs = [[np.zeros(2, np.float32)] * 6]
        >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
        >>> hy, ys = F.n_step_gru(1, 0.0, np.zeros((1, 2, 2), np.float32), ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 2), [(2, 2), (1, 2)])
    """
    return n_step_gru_base(
        n_layers, dropout_ratio, hx, ws, bs, xs, use_bi_direction=False, **kwargs
    )


def n_step_bigru(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    **kwargs: Any,
) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked bi-directional GRU over sequences.

    Like :func:`n_step_gru` with a forward and a backward GRU per layer
    (``hx``: ``(2 * n_layers, B, N)``; ``ws[2 l + d]``, ``bs[2 l + d]``;
    ``ys[t]``: ``(B_t, 2N)``).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> w = [np.ones((2, 3), np.float32)] * 3 + [np.ones((2, 2), np.float32)] * 3
        >>> b = [np.zeros(2, np.float32)] * 6
        >>> xs = [np.zeros((1, 3), np.float32)] * 2
        >>> hy, ys = F.n_step_bigru(1, 0.0, np.zeros((2, 1, 2), np.float32), [w, w],
        ...                         [b, b], xs)
        >>> hy.shape, ys[0].shape
        ((2, 1, 2), (1, 4))
    """
    return n_step_gru_base(
        n_layers, dropout_ratio, hx, ws, bs, xs, use_bi_direction=True, **kwargs
    )
