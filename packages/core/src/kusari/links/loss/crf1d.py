"""The linear-chain conditional random field link (``CRF1d``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari import initializers, link, variable
from kusari.functions.array import transpose_sequence as ts_module
from kusari.functions.loss import crf1d as crf1d_module


def _argsort_list_descent(lst: Sequence[Any]) -> Any:
    return numpy.argsort([-len(x) for x in lst]).astype(numpy.int32)


def _permutate_list(lst: Sequence[Any], indices: Any, inv: bool) -> list[Any]:
    ret: list[Any] = [None] * len(lst)
    if inv:
        for i, ind in enumerate(indices):
            ret[ind] = lst[i]
    else:
        for i, ind in enumerate(indices):
            ret[i] = lst[ind]
    return ret


class CRF1d(link.Link):
    """Linear-chain conditional random field loss layer.

    Holds the transition costs ``cost`` of shape ``(n_label, n_label)`` and
    wraps :func:`~kusari.functions.crf1d` and
    :func:`~kusari.functions.argmax_crf1d`.

    Args:
        n_label: Number of labels.
        initial_cost: Initializer of ``cost``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> crf = L.CRF1d(3)
        >>> xs = [np.zeros((2, 3), np.float32), np.zeros((1, 3), np.float32)]
        >>> ys = [np.array([0, 1], np.int32), np.array([2], np.int32)]
        >>> loss = crf(xs, ys)
        >>> score, path = crf.argmax(xs)
        >>> len(path)
        2
    """

    def __init__(self, n_label: int, initial_cost: Any = None) -> None:
        super().__init__()
        if initial_cost is None:
            initial_cost = initializers.Zero()
        with self.init_scope():
            self.cost = variable.Parameter(
                initializers._get_initializer(initial_cost), (n_label, n_label)
            )

    def forward(
        self,
        xs: Sequence[Any],
        ys: Sequence[Any],
        reduce: str = "mean",
        transpose: bool = False,
    ) -> Any:
        """Negative log-likelihood of the label sequences ``ys``.

        Args:
            xs: Per-step scores as for :func:`~kusari.functions.crf1d`
                (time-major, sorted by decreasing batch size); with
                ``transpose=True``, a list of per-sequence arrays of shape
                ``(L_i, n_label)`` in any order.
            ys: The labels, laid out like ``xs``.
            reduce: ``'mean'`` or ``'no'``.
            transpose: Whether ``xs`` and ``ys`` are batch-major.
        """
        if transpose:
            indices = _argsort_list_descent(xs)
            xs = _permutate_list(xs, indices, inv=False)
            ys = _permutate_list(ys, indices, inv=False)
            trans_x = ts_module.transpose_sequence(xs)
            trans_y = ts_module.transpose_sequence(ys)
            return crf1d_module.crf1d(self.cost, trans_x, trans_y, reduce)
        return crf1d_module.crf1d(self.cost, xs, ys, reduce)

    def argmax(self, xs: Sequence[Any], transpose: bool = False) -> Any:
        """The most probable label sequences (Viterbi).

        Args:
            xs: Scores laid out as for :meth:`forward`.
            transpose: Whether ``xs`` is batch-major; the paths are then
                returned per sequence, in the input order.

        Returns:
            tuple: ``(score, path)``.
        """
        if transpose:
            indices = _argsort_list_descent(xs)
            xs = _permutate_list(xs, indices, inv=False)
            trans_x = ts_module.transpose_sequence(xs)
            score, trans_path = crf1d_module.argmax_crf1d(self.cost, trans_x)
            per_seq = [p.array for p in ts_module.transpose_sequence(trans_path)]
            return score, _permutate_list(per_seq, indices, inv=True)
        return crf1d_module.argmax_crf1d(self.cost, xs)
