"""The pool's element-wise and sum kernels (see :mod:`kusari.utils.threads`).

They are re-exported by :mod:`kusari.utils.threads`, which is where callers
import them from; the pool functions are looked up there at call time, so
this module and the pool do not depend on import order.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.utils import threads as _threads


def elementwise(fn: numpy.ufunc, *args: Any) -> Any:
    """``fn(*args)`` for a NumPy ufunc, split over the pool when large.

    Each piece computes ``fn`` on a slice of the operands into the same
    slice of the output, so the result is bit for bit the unsplit one
    (element-wise results do not depend on how the range is cut). The
    output is C-ordered. Operands other than NumPy arrays and Python
    scalars, or outputs too small to split, are computed by ``fn(*args)``
    directly.

    Args:
        fn: A ufunc of one output, e.g. ``numpy.multiply``.
        *args: Its operands (NumPy arrays, broadcastable, or Python scalars).

    Returns:
        The result array, as ``fn(*args)`` would give it.
    """
    arrays = [a for a in args if type(a) is numpy.ndarray]
    if (
        len(arrays) + sum(1 for a in args if type(a) in (float, int, bool)) != len(args)
        or not arrays
    ):
        return fn(*args)
    shape = (
        arrays[0].shape
        if len(arrays) == 1
        else numpy.broadcast_shapes(*[a.shape for a in arrays])
    )
    size = 1
    for d in shape:
        size *= d
    dtypes = tuple(a.dtype if type(a) is numpy.ndarray else type(a) for a in args)
    try:
        out_dtype = fn.resolve_dtypes((*dtypes, None))[-1]
    except (TypeError, ValueError):  # let fn raise its own error
        return fn(*args)
    nbytes = size * out_dtype.itemsize + sum(a.nbytes for a in arrays)
    flat = all(a.shape == shape and a.flags.c_contiguous for a in arrays)
    n_items = size if flat else (shape[0] if shape else 1)
    pieces = _threads._pieces_for(n_items, nbytes)
    if pieces <= 1 or out_dtype.kind not in "biuf":
        return fn(*args)
    out = numpy.empty(shape, out_dtype)
    if flat:
        ops = [a.reshape(-1) if type(a) is numpy.ndarray else a for a in args]
        dst = out.reshape(-1)
    else:
        ndim = len(shape)
        ops = list(args)
        dst = out
    # Which operands are cut along the split axis (the others broadcast).
    cut = [
        type(a) is numpy.ndarray
        and a.ndim == (1 if flat else ndim)
        and a.shape[0] == n_items
        for a in ops
    ]
    ranges = _threads.split(n_items, pieces)

    def work(i: int) -> None:
        lo, hi = ranges[i]
        fn(*[a[lo:hi] if c else a for a, c in zip(ops, cut)], out=dst[lo:hi])

    _threads.parallel_for(work, len(ranges))
    return out


def reduce_sum(x: Any, axis: tuple[int, ...] | None, keepdims: bool = False) -> Any:
    """``x.sum(axis=axis, keepdims=keepdims)``, split over the pool when large.

    With a kept axis to split along (the first of length at least 2), each
    piece reduces its own slice into its slice of the output, so each output
    element sums the same elements; NumPy may order a narrower slice's sum
    differently, though, so floats can differ in the last bits. A sum over
    all axes is cut into contiguous pieces whose partial sums are added at
    the end, which may likewise differ from NumPy's pairwise sum.

    Args:
        x: A NumPy array.
        axis: Sorted, non-negative axes to sum over (None: all).
        keepdims: Keep the summed axes with length one.

    Returns:
        The sum, as ``x.sum(axis=axis, keepdims=keepdims)`` gives it.
    """
    if type(x) is not numpy.ndarray or x.dtype.kind not in "biuf":
        return x.sum(axis=axis, keepdims=keepdims)
    ndim = x.ndim
    red = tuple(range(ndim)) if axis is None else axis
    kept = [i for i in range(ndim) if i not in red and x.shape[i] >= 2]
    if kept:
        k = kept[0]
        pieces = _threads._pieces_for(x.shape[k], 2 * x.nbytes)
        if pieces <= 1:
            return x.sum(axis=axis, keepdims=keepdims)
        out = numpy.empty(
            tuple(1 if i in red else s for i, s in enumerate(x.shape))
            if keepdims
            else tuple(s for i, s in enumerate(x.shape) if i not in red),
            numpy.add.reduce(x[(slice(0, 1),) * ndim], axis=red).dtype,
        )
        ok = k if keepdims else k - sum(1 for a in red if a < k)
        ranges = _threads.split(x.shape[k], pieces)
        lead = (slice(None),) * k
        lead_out = (slice(None),) * ok

        def work(i: int) -> None:
            lo, hi = ranges[i]
            x[lead + (slice(lo, hi),)].sum(
                axis=axis, keepdims=keepdims, out=out[lead_out + (slice(lo, hi),)]
            )

        _threads.parallel_for(work, len(ranges))
        return out
    if len(red) != ndim or not x.flags.c_contiguous:
        return x.sum(axis=axis, keepdims=keepdims)
    flat = x.reshape(-1)
    pieces = _threads._pieces_for(flat.size, x.nbytes)
    if pieces <= 1:
        return x.sum(axis=axis, keepdims=keepdims)
    ranges = _threads.split(flat.size, pieces)
    partial = numpy.empty(len(ranges), numpy.add.reduce(flat[:1]).dtype)

    def part(i: int) -> None:
        lo, hi = ranges[i]
        partial[i] = flat[lo:hi].sum()

    _threads.parallel_for(part, len(ranges))
    total = partial.sum()
    return total.reshape((1,) * ndim) if keepdims else total
