"""Stacked GRU links over lists of sequences: :class:`NStepGRU`, :class:`NStepBiGRU`."""

from __future__ import annotations

from kusari.links.rnn.n_step_rnn import NStepRNNBase


class NStepGRUBase(NStepRNNBase):
    """Base of the NStep GRU links (6 weights and biases per layer and direction)."""

    n_weights = 6
    mode = "gru"


class NStepGRU(NStepGRUBase):
    """Stacked uni-directional GRU for sequences (:func:`n_step_gru`).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> hy, ys = L.NStepGRU(1, 3, 4, 0.0)(None, [np.zeros((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((1, 1, 4), (2, 4))
    """


class NStepBiGRU(NStepGRUBase):
    """Stacked bi-directional GRU for sequences.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> hy, ys = L.NStepBiGRU(1, 3, 4, 0.0)(None, [np.zeros((2, 3), np.float32)])
        >>> ys[0].shape
        (2, 8)
    """

    use_bi_direction = True
