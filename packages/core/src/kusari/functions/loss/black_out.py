"""BlackOut loss (Ji et al., 2016): sampled softmax with weighted negatives."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.functions.loss._helpers import as_array, check_reduce, expect_types
from kusari.functions.math.logsumexp import logsumexp
from kusari.utils import type_check
from kusari.variable import Variable


def _check(in_types: Any) -> None:
    x, t, w, s = in_types
    type_check.expect(
        x.dtype.kind == "f",
        x.ndim == 2,
        t.dtype.kind == "i",
        t.ndim == 1,
        x.shape[0] == t.shape[0],
        w.dtype == x.dtype,
        w.ndim == 2,
        w.shape[1] == x.shape[1],
        s.dtype.kind == "i",
        s.ndim == 2,
        s.shape[0] == x.shape[0],
    )


def black_out(x: Any, t: Any, W: Any, samples: Any, reduce: str = "mean") -> Variable:
    """BlackOut loss.

    With scores ``y = W[.] . x`` over the target and the sampled negatives,
    ``loss = -(log p_t + sum_s log(1 - p_s))`` where ``p`` is the softmax of
    the scores restricted to the target and the samples.

    Args:
        x: Input vectors, shape ``(N, D)``.
        t: Integer targets, shape ``(N,)``.
        W: Output embeddings, shape ``(V, D)``.
        samples: Integer negative samples, shape ``(N, S)``.
        reduce: ``'mean'`` (average over rows) or ``'no'`` (shape ``(N,)``).

    Returns:
        The loss variable.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.zeros((1, 2), np.float32)
        >>> W = np.zeros((3, 2), np.float32)
        >>> y = F.black_out(x, np.array([0]), W, np.array([[1]]))
        >>> round(float(y.array), 4)
        1.3863
    """
    from kusari.functions.array.get_item import get_item
    from kusari.functions.array.reshape import reshape
    from kusari.functions.math.exponential import exp, log
    from kusari.functions.math.sum import sum as _sum

    check_reduce("black_out", reduce, ("mean", "no"))
    expect_types("BlackOut", ("x", "t", "W", "samples"), (x, t, W, samples), _check)
    x_arr = as_array(x)
    xp = backend.get_array_module(x_arr)
    t_arr = as_array(t)
    s_arr = as_array(samples)
    n, d = x_arr.shape
    idx = xp.concatenate(
        [t_arr.reshape(n, 1).astype(numpy.intp), s_arr.astype(numpy.intp)], axis=1
    )  # (N, 1 + S)
    w = get_item(W, idx)
    y = _sum(w * reshape(x, (n, 1, d)), axis=2)  # (N, 1 + S)
    logz = logsumexp(y, axis=1)  # (N,)
    pos = get_item(y, (slice(None), 0))
    neg = get_item(y, (slice(None), slice(1, None)))
    logz_b = reshape(logz, (n, 1))
    log_not = log(1.0 - exp(neg - logz_b))
    loss = -(pos - logz + _sum(log_not, axis=1))
    if reduce == "mean":
        return _sum(loss) * (1.0 / n)
    return loss
