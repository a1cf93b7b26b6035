"""Connectionist temporal classification (CTC) loss.

The forward-backward recursions run in log space, vectorised over the batch
(one Python step per time step). Sequences of different lengths are handled
with ``input_length`` / ``label_length``: the forward variables of a finished
sequence are frozen, the backward ones start at its last frame.
"""

from __future__ import annotations

import collections.abc
from typing import Any

import numpy

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.functions.loss._helpers import _quiet, as_array, check_reduce
from kusari.utils import force_array, type_check
from kusari.variable import Variable


def _scatter_add(xp: Any, a: Any, index: Any, values: Any) -> None:
    xp.add.at(a, index, values)


class ConnectionistTemporalClassification(FunctionNode):
    """Inputs: ``input_length, label_length, t, x_0, ..., x_{T-1}``."""

    def __init__(self, blank_symbol: int, reduce: str = "mean") -> None:
        self.blank_symbol = blank_symbol
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 3)
        il, ll, t = in_types[0], in_types[1], in_types[2]
        x0 = in_types[3]
        type_check.expect(
            il.dtype.kind == "i",
            il.ndim == 1,
            ll.dtype.kind == "i",
            ll.ndim == 1,
            t.dtype.kind == "i",
            t.ndim == 2,
            x0.dtype.kind == "f",
            x0.ndim == 2,
            t.shape[0] == x0.shape[0],
            il.shape[0] == x0.shape[0],
            ll.shape[0] == x0.shape[0],
        )
        for i in range(4, type_check.eval(in_types.size())):
            type_check.expect(
                in_types[i].dtype == x0.dtype, in_types[i].shape == x0.shape
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        input_length, label_length, t = inputs[:3]
        xs = inputs[3:]
        xp = backend.get_array_module(*xs)
        dtype = xs[0].dtype
        work = numpy.float32 if dtype == numpy.float16 else dtype
        n_time = len(xs)
        n_batch, n_vocab = xs[0].shape
        max_label = t.shape[1]
        blank = self.blank_symbol
        il = input_length.astype(numpy.intp)
        ll = label_length.astype(numpy.intp)
        if bool(((il < 1) | (il > n_time)).any()):
            raise ValueError(
                f"connectionist_temporal_classification: input_length must be in "
                f"[1, {n_time}], got {il.tolist()}"
            )
        if bool(((ll < 0) | (ll > max_label)).any()):
            raise ValueError(
                f"connectionist_temporal_classification: label_length must be in "
                f"[0, {max_label}], got {ll.tolist()}"
            )
        if t.size and bool(((t < 0) | (t >= n_vocab)).any()):
            raise ValueError(
                "connectionist_temporal_classification: labels must be in "
                f"[0, {n_vocab})"
            )

        x = xp.stack(xs).astype(work, copy=False)  # (T, B, V)
        m = x.max(axis=2, keepdims=True)
        log_y = x - (xp.log(xp.exp(x - m).sum(axis=2, keepdims=True)) + m)

        n_state = 2 * max_label + 1
        lab = xp.full((n_batch, n_state), blank, dtype=numpy.intp)
        lab[:, 1::2] = t
        b_idx = xp.arange(n_batch)[:, None]
        lp = log_y[:, b_idx, lab]  # (T, B, S)
        skip = xp.zeros((n_batch, n_state), dtype=bool)
        skip[:, 2:] = (lab[:, 2:] != blank) & (lab[:, 2:] != lab[:, :-2])
        s_idx = xp.arange(n_state)[None, :]
        last = 2 * ll[:, None]  # the final blank state of each sequence
        in_range = s_idx <= last
        ends = (s_idx == last) | ((s_idx == last - 1) & (ll[:, None] > 0))
        neg_inf = xp.asarray(-numpy.inf, dtype=work)

        alpha = xp.full((n_time, n_batch, n_state), neg_inf, dtype=work)
        beta = xp.full((n_time, n_batch, n_state), neg_inf, dtype=work)
        with _quiet(xp):
            a = xp.where(s_idx < 2, lp[0], neg_inf)
            a = xp.where(in_range, a, neg_inf)
            alpha[0] = a
            for step in range(1, n_time):
                prev = alpha[step - 1]
                a = prev.copy()
                a[:, 1:] = xp.logaddexp(a[:, 1:], prev[:, :-1])
                a[:, 2:] = xp.where(
                    skip[:, 2:], xp.logaddexp(a[:, 2:], prev[:, :-2]), a[:, 2:]
                )
                a = xp.where(in_range, a + lp[step], neg_inf)
                alpha[step] = xp.where((step < il)[:, None], a, prev)

            nxt = xp.full((n_batch, n_state), neg_inf, dtype=work)
            for step in range(n_time - 1, -1, -1):
                r = nxt.copy()
                r[:, :-1] = xp.logaddexp(r[:, :-1], nxt[:, 1:])
                r[:, :-2] = xp.where(
                    skip[:, 2:], xp.logaddexp(r[:, :-2], nxt[:, 2:]), r[:, :-2]
                )
                r = r + lp[step]
                start = xp.where(ends, lp[step], neg_inf)
                cur = xp.where(
                    (step == il - 1)[:, None],
                    start,
                    xp.where((step < il - 1)[:, None], r, neg_inf),
                )
                beta[step] = cur
                nxt = cur

            final = alpha[n_time - 1]
            rows = xp.arange(n_batch)
            end1 = final[rows, last[:, 0]]
            end2 = xp.where(ll > 0, final[rows, xp.maximum(last[:, 0] - 1, 0)], neg_inf)
            log_lik = xp.logaddexp(end1, end2)  # (B,)

            post = xp.exp(alpha + beta - lp - log_lik[None, :, None])
        post = xp.where(xp.isfinite(post), post, 0)
        active = (xp.arange(n_time)[:, None] < il[None, :]).astype(work)
        grad = xp.exp(log_y) * active[:, :, None]
        t_idx = xp.broadcast_to(xp.arange(n_time)[:, None, None], post.shape)
        bb = xp.broadcast_to(b_idx[None], post.shape)
        ll_idx = xp.broadcast_to(lab[None], post.shape)
        _scatter_add(xp, grad, (t_idx, bb, ll_idx), -post)
        self._grad = grad
        loss = -log_lik
        if self.reduce == "mean":
            return (force_array(xp.asarray(loss.mean()), dtype),)
        return (force_array(loss, dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        # Chainer's CTC is not twice differentiable: the gradient is returned
        # as a constant (the posteriors are computed in forward).
        gy = grad_outputs[0].array
        grad = self._grad
        n_batch = grad.shape[1]
        if self.reduce == "mean":
            coeff = (gy / n_batch).astype(grad.dtype)
            scaled = grad * coeff
        else:
            scaled = grad * gy.astype(grad.dtype)[None, :, None]
        dtype = grad_outputs[0].dtype
        ret: list[Variable | None] = []
        for i in indexes:
            if i < 3:
                ret.append(None)
            else:
                ret.append(Variable(scaled[i - 3].astype(dtype), requires_grad=False))
        return tuple(ret)


def connectionist_temporal_classification(
    x: Any,
    t: Any,
    blank_symbol: int,
    input_length: Any = None,
    label_length: Any = None,
    reduce: str = "mean",
) -> Variable:
    """Connectionist temporal classification loss.

    ``-log p(t | x)`` summed over all alignments of the label sequence
    (with blanks and repeats) to the input frames; softmax is applied to
    ``x`` internally.

    Args:
        x: A list of ``T`` variables of shape ``(B, V)`` (unnormalised
            scores per frame).
        t: Integer labels of shape ``(B, L)`` (padded).
        blank_symbol: Index of the blank label.
        input_length: Frames per sequence, shape ``(B,)`` (default ``T``).
        label_length: Labels per sequence, shape ``(B,)`` (default ``L``).
        reduce: ``'mean'`` (over the batch) or ``'no'`` (shape ``(B,)``).

    Returns:
        The loss variable.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = [np.zeros((1, 2), np.float32)]
        >>> y = F.connectionist_temporal_classification(x, np.array([[1]]), 0)
        >>> round(float(y.array), 4)
        0.6931
    """
    if not isinstance(x, collections.abc.Sequence):
        raise TypeError(
            "connectionist_temporal_classification: x must be a list "
            f"of Variables, got {type(x).__name__}"
        )
    if isinstance(blank_symbol, bool) or not isinstance(
        blank_symbol, (int, numpy.integer)
    ):
        raise TypeError(
            "connectionist_temporal_classification: blank_symbol must be "
            f"non-negative integer, got {blank_symbol!r}"
        )
    check_reduce("connectionist_temporal_classification", reduce, ("mean", "no"))
    if len(x) == 0:
        raise ValueError("connectionist_temporal_classification: x must not be empty")
    x0 = as_array(x[0])
    if x0.ndim != 2:
        raise ValueError(
            "connectionist_temporal_classification: each x[i] must be "
            f"2-dimensional (B, V), got shape {x0.shape}"
        )
    if not 0 <= blank_symbol < x0.shape[1]:
        raise ValueError(
            "connectionist_temporal_classification: blank_symbol must be "
            f"in [0, {x0.shape[1]}), got {blank_symbol}"
        )
    xp = backend.get_array_module(x0)
    t_arr = as_array(t)
    if input_length is None:
        input_length = xp.full(x0.shape[0], len(x), dtype=numpy.int32)
    if label_length is None:
        label_length = xp.full(
            t_arr.shape[0], t_arr.shape[1] if t_arr.ndim == 2 else 0, dtype=numpy.int32
        )
    node = ConnectionistTemporalClassification(int(blank_symbol), reduce)
    # Labels and lengths are small host-side arrays more often than not; move
    # them to x's device instead of failing deep inside an indexing kernel.
    lengths_and_labels = (
        xp.asarray(as_array(input_length)),
        xp.asarray(as_array(label_length)),
        xp.asarray(t_arr),
    )
    return node.apply((*lengths_and_labels, *x))[0]
