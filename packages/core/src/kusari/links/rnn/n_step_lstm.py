"""Stacked LSTM links over sequences: :class:`NStepLSTM`, :class:`NStepBiLSTM`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kusari.links.rnn.n_step_rnn import NStepRNNBase, _check_train


class NStepLSTMBase(NStepRNNBase):
    """Base of the NStep LSTM links (8 weights and biases per layer and direction)."""

    n_weights = 8
    mode = "lstm"
    use_cell = True

    def forward(  # type: ignore[override]
        self,
        hx: Any,
        cx: Any,
        xs: Sequence[Any],
        **kwargs: Any,
    ) -> tuple[Any, Any, list[Any]]:
        """Run on ``xs`` (list of ``(L_i, in_size)`` sequences, any order).

        Args:
            hx: Initial hidden states ``(n_layers * directions, B, out_size)`` or None.
            cx: Initial cell states (same shape) or None.
            xs: The sequences.

        Returns:
            ``(hy, cy, ys)``.
        """
        _check_train(type(self).__name__, kwargs)
        (hy, cy), ys = self._call([hx, cx], xs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked uni-directional LSTM for sequences (:func:`n_step_lstm`).

    Parameters are ``self[l].w0 .. w7`` and ``b0 .. b7`` per layer, exactly as
    Chainer's (so Chainer's npz files load). ``forward(hx, cx, xs)`` sorts and
    transposes the sequences itself; the input projection of all time steps
    is one matrix product per layer.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> lstm = L.NStepLSTM(2, 3, 4, 0.0)
        >>> xs = [np.zeros((5, 3), np.float32), np.zeros((2, 3), np.float32)]
        >>> hy, cy, ys = lstm(None, None, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(5, 4), (2, 4)])
    """


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bi-directional LSTM for sequences (outputs ``2 * out_size`` wide).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> xs = [np.zeros((2, 3), np.float32)]
        >>> hy, cy, ys = L.NStepBiLSTM(1, 3, 4, 0.0)(None, None, xs)
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    use_bi_direction = True
