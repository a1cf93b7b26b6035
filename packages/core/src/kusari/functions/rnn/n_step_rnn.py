"""Stacked (bi)directional Elman RNNs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari.functions.rnn import _ops
from kusari.functions.rnn._n_step_core import N_WEIGHTS, RNNLayer
from kusari.variable import Variable


def _check_kwargs(name: str, kwargs: dict[str, Any]) -> None:
    if not kwargs:
        return
    if "train" in kwargs:
        raise ValueError(
            f"{name}: the train argument is not supported anymore; "
            "use kusari.using_config('train', ...)"
        )
    if "use_cudnn" in kwargs:
        raise ValueError(
            f"{name}: the use_cudnn argument is not supported anymore; "
            "use kusari.using_config('use_cudnn', ...)"
        )
    raise TypeError(f"{name}: unexpected keyword arguments {sorted(kwargs)}")


def _batch_sizes(name: str, xs: Sequence[Any]) -> list[int]:
    if len(xs) == 0:
        raise ValueError(f"{name}: xs must hold at least one time step")
    sizes = [int(x.shape[0]) for x in xs]
    for t in range(1, len(sizes)):
        if sizes[t] > sizes[t - 1]:
            raise ValueError(
                f"{name}: xs[t].shape[0] must not increase with t (sort the sequences "
                f"by decreasing length and transpose them), got batch sizes {sizes}"
            )
    return sizes


def n_step_packed(
    name: str,
    mode: str,
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Sequence[Sequence[Any]],
    bs: Sequence[Sequence[Any]],
    x: Any,
    batch_sizes: Sequence[int],
    use_bi_direction: bool,
) -> tuple[Variable, Variable | None, Variable]:
    """Run the stacked RNN on packed (time-major, concatenated) input ``x``.

    Returns ``(hy, cy, y)`` with ``y`` packed like ``x``; ``cy`` is None
    unless ``mode == 'lstm'``.
    """
    direction = 2 if use_bi_direction else 1
    n_w = N_WEIGHTS[mode]
    if len(ws) != n_layers * direction or len(bs) != n_layers * direction:
        raise ValueError(
            f"{name}: ws and bs must hold {n_layers * direction} lists (n_layers x "
            f"directions), got {len(ws)} and {len(bs)}"
        )
    for k, (w, b) in enumerate(zip(ws, bs)):
        if len(w) != n_w or len(b) != n_w:
            raise ValueError(
                f"{name}: ws[{k}] and bs[{k}] must hold {n_w} arrays each, "
                f"got {len(w)} and {len(b)}"
            )
    x_in = x.shape[1]
    w_in = ws[0][0].shape[1]
    if x_in != w_in:
        raise ValueError(
            f"{name}: inconsistent input size in input values and weight "
            f"parameters: {x_in} != {w_in}"
        )
    n_states = n_layers * direction
    if hx.shape[0] != n_states:
        raise ValueError(f"{name}: hx.shape[0] must be {n_states}, got {hx.shape[0]}")
    if hx.shape[1] < batch_sizes[0]:
        raise ValueError(
            f"{name}: hx holds {hx.shape[1]} sequences but xs[0] has "
            f"{batch_sizes[0]} rows"
        )
    hs = _ops.split(hx, [1] * n_states, 0)
    cs = _ops.split(cx, [1] * n_states, 0) if cx is not None else None
    shape = tuple(hx.shape[1:])
    from kusari.functions.array.reshape import reshape

    hys: list[Any] = []
    cys: list[Any] = []
    for layer in range(n_layers):
        outs = []
        for d in range(direction):
            idx = layer * direction + d
            xin = x if layer == 0 else _ops.dropout(x, dropout_ratio)
            inputs = [xin, reshape(hs[idx], shape)]
            if cs is not None:
                inputs.append(reshape(cs[idx], shape))
            inputs.extend(ws[idx])
            inputs.extend(bs[idx])
            res = RNNLayer(mode, batch_sizes, reverse=d == 1).apply(inputs)
            outs.append(res[0])
            hys.append(res[1])
            if cs is not None:
                cys.append(res[2])
        x = outs[0] if direction == 1 else _ops.concat(outs, 1)
    hy = _ops.stack(hys)
    cy = _ops.stack(cys) if cs is not None else None
    return hy, cy, x


def n_step_base(
    name: str,
    mode: str,
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    use_bi_direction: bool,
) -> tuple[Variable, Variable | None, tuple[Variable, ...]]:
    """Time-major list interface over :func:`n_step_packed`."""
    sizes = _batch_sizes(name, xs)
    x = _ops.concat(list(xs), 0)
    hy, cy, y = n_step_packed(
        name, mode, n_layers, dropout_ratio, hx, cx, ws, bs, x, sizes, use_bi_direction
    )
    ys = _ops.split(y, sizes, 0)
    return hy, cy, tuple(ys)


def n_step_rnn_base(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    activation: str,
    use_bi_direction: bool,
    **kwargs: Any,
) -> tuple[Variable, tuple[Variable, ...]]:
    """Shared body of :func:`n_step_rnn` and :func:`n_step_birnn`."""
    name = "n_step_birnn" if use_bi_direction else "n_step_rnn"
    _check_kwargs(name, kwargs)
    if activation not in ("tanh", "relu"):
        raise ValueError(
            f'{name}: invalid activation "{activation}"; select from [tanh, relu]'
        )
    hy, _, ys = n_step_base(
        name,
        "rnn_" + activation,
        n_layers,
        dropout_ratio,
        hx,
        None,
        ws,
        bs,
        xs,
        use_bi_direction,
    )
    return hy, ys


def n_step_rnn(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    activation: str = "tanh",
    **kwargs: Any,
) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked uni-directional RNN over sequences.

    Per layer and step: ``h_t = f(W0 x_t + W1 h_{t-1} + b0 + b1)``.

    Args:
        n_layers: Number of layers.
        dropout_ratio: Dropout applied to the input of every layer but the first
            (in training mode only).
        hx: Initial hidden states, shape ``(n_layers, B, N)``.
        ws: ``ws[l] = [W0, W1]`` per layer (``W0``: ``(N, I)``, ``W1``: ``(N, N)``).
        bs: ``bs[l] = [b0, b1]`` per layer, each ``(N,)``.
        xs: Time-major list: ``xs[t]`` holds time step ``t`` of the sequences,
            shape ``(B_t, I)`` with ``B_t`` non-increasing (sort the sequences by
            decreasing length and transpose them).
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``(hy, ys)``: final hidden states like ``hx`` and a tuple of the last
        layer's outputs ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> ws = [[np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]]
        >>> bs = [[np.zeros(2, np.float32), np.zeros(2, np.float32)]]
        >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
        >>> hy, ys = F.n_step_rnn(1, 0.0, np.zeros((1, 2, 2), np.float32), ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 2), [(2, 2), (1, 2)])
    """
    return n_step_rnn_base(
        n_layers,
        dropout_ratio,
        hx,
        ws,
        bs,
        xs,
        activation,
        use_bi_direction=False,
        **kwargs,
    )


def n_step_birnn(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    ws: Any,
    bs: Any,
    xs: Sequence[Any],
    activation: str = "tanh",
    **kwargs: Any,
) -> tuple[Variable, tuple[Variable, ...]]:
    """Stacked bi-directional RNN over sequences.

    Like :func:`n_step_rnn` with a forward and a backward RNN per layer:
    ``hx`` has shape ``(2 * n_layers, B, N)``, ``ws[2 l + d]``/``bs[2 l + d]``
    hold the weights of layer ``l`` and direction ``d`` (0 forward, 1
    backward), layers above the first take ``2N`` inputs, and ``ys[t]``
    concatenates both directions, shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> w = [np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]
        >>> b = [np.zeros(2, np.float32), np.zeros(2, np.float32)]
        >>> xs = [np.zeros((1, 3), np.float32)] * 4
        >>> hy, ys = F.n_step_birnn(1, 0.0, np.zeros((2, 1, 2), np.float32), [w, w],
        ...                         [b, b], xs)
        >>> hy.shape, ys[0].shape
        ((2, 1, 2), (1, 4))
    """
    return n_step_rnn_base(
        n_layers,
        dropout_ratio,
        hx,
        ws,
        bs,
        xs,
        activation,
        use_bi_direction=True,
        **kwargs,
    )
