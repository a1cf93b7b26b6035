"""Negative sampling loss (word2vec's objective)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from kusari import backend
from kusari.functions.activation.softplus import softplus
from kusari.functions.loss._helpers import as_array, check_reduce, expect_types
from kusari.utils import type_check

_IGNORE_LABEL = -1


def _check(in_types: Any) -> None:
    x, t, w = in_types
    type_check.expect(
        x.dtype.kind == "f",
        x.ndim == 2,
        t.dtype.kind == "i",
        t.ndim == 1,
        x.shape[0] == t.shape[0],
        w.dtype == x.dtype,
        w.ndim == 2,
        w.shape[1] == x.shape[1],
    )


def negative_sampling(
    x: Any,
    t: Any,
    W: Any,
    sampler: Callable[[Any], Any],
    sample_size: int,
    reduce: str = "sum",
    **kwargs: Any,
) -> Any:
    """Negative sampling loss.

    For each row, the positive word ``t[i]`` should score high against
    ``x[i]`` and ``sample_size`` words drawn by ``sampler`` should score low:
    ``-log sigmoid(W[t] . x) - sum_s log sigmoid(-W[s] . x)``.

    Args:
        x: Input vectors, shape ``(N, D)``.
        t: Integer targets of shape ``(N,)``; ``-1`` rows are ignored.
        W: Output embeddings, shape ``(V, D)``.
        sampler: ``sampler(shape)`` returns an integer array of word ids
            (e.g. ``WalkerAlias(counts).sample``).
        sample_size: Number of negatives per row.
        reduce: ``'sum'`` for a scalar, ``'no'`` for one loss per row.
        return_samples (bool): Also return the ``(N, sample_size + 1)``
            array of word ids used (column 0 holds ``t``).

    Returns:
        The loss, or ``(loss, samples)`` with ``return_samples=True``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.zeros((1, 2), np.float32)
        >>> W = np.zeros((3, 2), np.float32)
        >>> def sampler(shape):
        ...     return np.zeros(shape, np.int32)
        >>> round(float(F.negative_sampling(x, np.array([1]), W, sampler, 2).array), 4)
        2.0794
    """
    from kusari.functions.array.get_item import get_item
    from kusari.functions.array.reshape import reshape
    from kusari.functions.math.sum import sum as _sum

    return_samples = kwargs.pop("return_samples", False)
    if kwargs:
        raise TypeError(
            f"negative_sampling() got unexpected keyword arguments: {sorted(kwargs)}"
        )
    check_reduce("negative_sampling", reduce, ("sum", "no"))
    expect_types("NegativeSampling", ("x", "t", "W"), (x, t, W), _check)
    t_arr = as_array(t)
    x_arr = as_array(x)
    xp = backend.get_array_module(x_arr)
    n, d = x_arr.shape
    samples = xp.array(sampler((n, sample_size + 1)), dtype=numpy.int32, copy=True)
    if samples.shape != (n, sample_size + 1):
        raise ValueError(
            f"negative_sampling: sampler returned shape {samples.shape}, expected "
            f"{(n, sample_size + 1)}"
        )
    samples[:, 0] = t_arr
    mask = (t_arr != _IGNORE_LABEL).astype(x_arr.dtype)
    w = get_item(W, xp.where(samples == _IGNORE_LABEL, 0, samples))  # (N, S + 1, D)
    f = _sum(w * reshape(x, (n, 1, d)), axis=2)  # (N, S + 1)
    sign = xp.ones((1, sample_size + 1), dtype=x_arr.dtype)
    sign[0, 0] = -1
    loss = _sum(softplus(f * sign), axis=1) * mask
    if reduce == "sum":
        loss = _sum(loss)
    if return_samples:
        return loss, samples
    return loss
