"""Linear-chain conditional random field: loss and Viterbi decoding.

Sequences are given transposed, as in Chainer: ``xs[t]`` holds the scores at
time ``t`` of every sequence that is at least ``t + 1`` long, so the batch
must be sorted by decreasing length (``F.transpose_sequence`` does this).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari import backend
from kusari.functions.array.concat import concat
from kusari.functions.loss._helpers import as_array, check_reduce
from kusari.functions.math.logsumexp import logsumexp
from kusari.variable import Variable


def _check_inputs(fname: str, cost: Any, xs: Sequence[Any]) -> None:
    if len(xs) == 0:
        raise ValueError(f"{fname}: xs must not be empty")
    c = as_array(cost)
    if c.ndim != 2 or c.shape[0] != c.shape[1]:
        raise ValueError(
            f"{fname}: cost must be a square matrix (K, K), got shape {c.shape}"
        )
    prev = None
    for i, x in enumerate(xs):
        shape = as_array(x).shape
        if len(shape) != 2 or shape[1] != c.shape[0]:
            raise ValueError(
                f"{fname}: xs[{i}] must have shape (B_{i}, {c.shape[0]}), got {shape}"
            )
        if prev is not None and shape[0] > prev:
            raise ValueError(
                f"{fname}: batch sizes of xs must not increase (sort the "
                f"sequences by decreasing length); xs[{i}] has {shape[0]} "
                f"rows after {prev}"
            )
        prev = shape[0]


def _path_score(cost: Any, xs: Sequence[Any], ys: Sequence[Any]) -> Variable:
    """Unary plus transition scores of the label paths ``ys``, shape ``(B,)``."""
    from kusari.functions.array.get_item import get_item

    xp = backend.get_array_module(as_array(xs[0]))
    y0 = as_array(ys[0])
    score = get_item(xs[0], (xp.arange(len(y0)), y0))
    finished = []
    for x, y, y_prev in zip(xs[1:], ys[1:], ys[:-1], strict=True):
        y = as_array(y)
        y_prev = as_array(y_prev)
        batch = as_array(x).shape[0]
        if score.shape[0] > batch:
            finished.append(get_item(score, slice(batch, None)))
            score = get_item(score, slice(None, batch))
            y_prev = y_prev[:batch]
        score = score + get_item(x, (xp.arange(batch), y)) + get_item(cost, (y_prev, y))
    if finished:
        finished.append(score)
        score = concat(finished[::-1], axis=0)
    return score


def crf1d(
    cost: Any, xs: Sequence[Any], ys: Sequence[Any], reduce: str = "mean"
) -> Variable:
    """Negative log-likelihood of label sequences under a linear-chain CRF.

    ``p(y | x) = exp(sum_t x_t[y_t] + sum_t cost[y_{t-1}, y_t]) / Z(x)``.

    Args:
        cost: Transition scores, shape ``(K, K)``; ``cost[i, j]`` scores
            label ``i`` followed by ``j``.
        xs: A list of ``T`` variables; ``xs[t]`` has shape ``(B_t, K)`` with
            ``B_0 >= B_1 >= ...`` (transposed, length-sorted sequences).
        ys: A list of ``T`` integer arrays; ``ys[t]`` has shape ``(B_t,)``.
        reduce: ``'mean'`` (averaged over the ``B_0`` sequences) or ``'no'``
            (shape ``(B_0,)``).

    Returns:
        The loss variable.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> cost = np.zeros((2, 2), np.float32)
        >>> xs = [np.zeros((1, 2), np.float32)] * 2
        >>> ys = [np.array([0], np.int32)] * 2
        >>> round(float(F.crf1d(cost, xs, ys).array), 4)
        1.3863
    """
    from kusari.functions.array.get_item import get_item
    from kusari.functions.array.reshape import reshape
    from kusari.functions.math.sum import sum as _sum

    check_reduce("crf1d", reduce, ("mean", "no"))
    _check_inputs("crf1d", cost, xs)
    if len(ys) != len(xs):
        raise ValueError(
            f"crf1d: xs and ys must have the same length, got {len(xs)} and {len(ys)}"
        )
    n_label = as_array(cost).shape[0]
    n_batch = as_array(xs[0]).shape[0]
    cost_b = reshape(cost, (1, n_label, n_label))
    alpha = xs[0]
    if not isinstance(alpha, Variable):
        alpha = Variable(alpha, requires_grad=False)
    finished = []
    for x in xs[1:]:
        batch = as_array(x).shape[0]
        if alpha.shape[0] > batch:
            finished.append(get_item(alpha, slice(batch, None)))
            alpha = get_item(alpha, slice(None, batch))
        alpha = logsumexp(reshape(alpha, (batch, n_label, 1)) + cost_b, axis=1) + x
    if finished:
        finished.append(alpha)
        alpha = concat(finished[::-1], axis=0)
    logz = logsumexp(alpha, axis=1)
    loss = logz - _path_score(cost, xs, ys)
    if reduce == "mean":
        return _sum(loss) * (1.0 / n_batch)
    return loss


def argmax_crf1d(cost: Any, xs: Sequence[Any]) -> tuple[Variable, list[Any]]:
    """The most probable label paths of a linear-chain CRF (Viterbi).

    Args:
        cost: Transition scores, shape ``(K, K)``.
        xs: A list of ``T`` variables of shapes ``(B_t, K)``, transposed and
            sorted by decreasing length as for :func:`crf1d`.

    Returns:
        ``(score, path)``: ``score`` is a variable of shape ``(B_0,)`` with
        the best path's score; ``path`` is a list of ``T`` integer arrays,
        ``path[t]`` of shape ``(B_t,)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> cost = np.zeros((2, 2), np.float32)
        >>> xs = [np.array([[0., 1.]], np.float32)] * 2
        >>> score, path = F.argmax_crf1d(cost, xs)
        >>> [p.tolist() for p in path]
        [[1], [1]]
    """
    _check_inputs("argmax_crf1d", cost, xs)
    c = as_array(cost)
    xp = backend.get_array_module(c)
    alpha = as_array(xs[0])
    rests: list[Any] = []
    back: list[Any] = []
    for x in xs[1:]:
        x = as_array(x)
        batch = x.shape[0]
        if alpha.shape[0] > batch:
            rests.append(alpha[batch:])
            alpha = alpha[:batch]
        else:
            rests.append(None)
        scores = alpha[:, :, None] + c[None]
        back.append(scores.argmax(axis=1).astype(numpy.int32))
        alpha = scores.max(axis=1) + x
    inds = alpha.argmax(axis=1).astype(numpy.int32)
    path = [inds]
    for ptr, rest in zip(back[::-1], rests[::-1], strict=True):
        inds = ptr[xp.arange(len(inds)), inds]
        if rest is not None:
            inds = xp.concatenate([inds, rest.argmax(axis=1).astype(numpy.int32)])
        path.append(inds)
    path.reverse()
    return _path_score(cost, xs, path), path
