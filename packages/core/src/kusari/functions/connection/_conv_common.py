"""Low-level helpers shared by the convolution kernels (N-d, device agnostic).

The array module of an array, window geometry, the per-thread scratch
buffers that the column layouts reuse, the chunking of those buffers, an
L1-blocked copy for transposes whose source is strided along the batch axis,
and the ufunc-buffer setting under which col2im adds in place.  Used by
``_conv_core`` (sample-major layout, public entry points),
``_conv_batch_inner`` (batch-innermost layout) and ``_conv_pointwise``
(1x1 kernels).

``matmul_into`` runs the GEMMs of those layouts on the intra-op threads:
the product cut into blocks fixed by its shape (``functions.math._gemm_split``,
shared with Linear), each one thread's GEMM with BLAS held to one thread, so
that the bits do not depend on the thread count.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator
from typing import Any

import numpy

from kusari.functions.math import _gemm_split
from kusari.utils import threads

# Target size of one column buffer (bytes); a chunk holds at least one sample.
_CHUNK_BYTES = 64 << 20


_local = threading.local()


def _workspace(slot: int, size: int, dtype: Any, xp: Any) -> Any:
    """A reusable 1-d scratch array (per thread and slot) of at least ``size``.

    Large temporaries freshly allocated on every call cost page faults each
    time; the column buffers are reused instead (NumPy only: CuPy has its
    own memory pool).  Never returned to callers.
    """
    dtype = numpy.dtype(dtype)
    if xp is not numpy:
        return xp.empty((size,), dtype=dtype)
    bufs = getattr(_local, "bufs", None)
    if bufs is None:
        bufs = _local.bufs = {}
    nbytes = size * dtype.itemsize
    raw = bufs.get(slot)
    if raw is None or raw.nbytes < nbytes:
        raw = bufs[slot] = numpy.empty((nbytes,), dtype=numpy.uint8)
    return raw[:nbytes].view(dtype)


def clear_workspace() -> None:
    """Release this thread's cached scratch buffers."""
    _local.bufs = {}


def _as_strided(xp: Any) -> Any:
    return xp.lib.stride_tricks.as_strided


def _xp(x: Any) -> Any:
    return numpy if isinstance(x, numpy.ndarray) else _cupy()


def _cupy() -> Any:
    import cupy

    return cupy


def _prod(t: tuple[int, ...]) -> int:
    r = 1
    for v in t:
        r *= v
    return r


def _chunk(per_sample_elems: int, itemsize: int, n: int) -> int:
    return max(1, min(n, _CHUNK_BYTES // max(1, per_sample_elems * itemsize)))


def high_pad(
    size: tuple[int, ...],
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
) -> tuple[int, ...]:
    """Padding needed after the end so that ``out`` windows fit."""
    return tuple(
        max(0, (o - 1) * st + (kk - 1) * dd + 1 - n - pp)
        for n, kk, st, pp, dd, o in zip(size, k, s, p, d, out)
    )


def _is_pointwise(
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    insz: tuple[int, ...],
    out: tuple[int, ...],
) -> bool:
    """A 1x1 convolution whose columns are the input itself."""
    return (
        all(v == 1 for v in k)
        and all(v == 1 for v in s)
        and not any(p)
        and tuple(insz) == tuple(out)
    )


def _deconv_pad_shape(
    out: tuple[int, ...],
    p: tuple[int, ...],
    insz: tuple[int, ...],
    s: tuple[int, ...],
    k: tuple[int, ...],
    d: tuple[int, ...],
) -> tuple[int, ...]:
    """Padded output region of a transposed convolution that every window
    write lands in."""
    return tuple(
        max(o + 2 * pp, (nn - 1) * st + (kk - 1) * dd + 1)
        for o, pp, nn, st, kk, dd in zip(out, p, insz, s, k, d)
    )


# Elements of the source read per copy by _blocked_copy (about L1 sized).
_COPY_BLOCK = 8192


def _blocked_copy(dst: Any, src: Any) -> None:
    """``dst[...] = src`` for ``src`` strided along axis 0, in pieces.

    NumPy copies in the order of ``dst``, so each cache line of ``src`` (a run
    along axis 0) serves several consecutive samples; a pass over one sample
    must therefore touch no more lines than the L1 cache keeps, i.e. about
    ``_COPY_BLOCK / N`` elements of a sample per copy.
    """
    shape = dst.shape
    block = max(16, _COPY_BLOCK // max(1, shape[0]))
    if dst.ndim < 2 or _prod(tuple(shape[1:])) <= block:
        dst[...] = src
        return
    a = 1
    while _prod(tuple(shape[a + 1 :])) > block:
        a += 1
    step = max(1, block // _prod(tuple(shape[a + 1 :])))
    for outer in itertools.product(*[range(v) for v in shape[1:a]]):
        for i in range(0, shape[a], step):
            idx = (slice(None),) + outer + (slice(i, i + step),)
            dst[idx] = src[idx]


# NumPy ufunc buffer size (elements) while col2im adds strided blocks.
_ADD_BUFSIZE = 1024


@contextlib.contextmanager
def _small_ufunc_buffer(a: Any) -> Iterator[None]:
    """Shrink NumPy's ufunc buffer for the duration of the block.

    With the default size (8192) NumPy runs an in-place add whose operands
    are strided blocks of rows shorter than about 2K elements through its
    buffers, three to four times slower than adding the rows where they are;
    a small buffer makes it add in place.  (The setting is context local.)
    """
    if not isinstance(a, numpy.ndarray):
        yield
        return
    old = numpy.setbufsize(_ADD_BUFSIZE)
    try:
        yield
    finally:
        numpy.setbufsize(old)


def _split_axis(shape: tuple[int, ...]) -> int:
    """The axis to cut work on an array of ``shape`` along: the first one
    with a piece for every thread, else the longest of the leading three."""
    n = threads.get_num_threads()
    lead = shape[:3]
    for a, v in enumerate(lead):
        if v >= n:
            return a
    return max(range(len(lead)), key=lambda a: lead[a])


def par_apply(
    fn: Any,
    arrays: list[Any],
    nbytes: int,
    axis: int | None = None,
    one_range_per_thread: bool = False,
) -> None:
    """``fn(*pieces)`` over pieces of ``arrays`` cut along one common axis,
    on the intra-op threads when ``nbytes`` of work is worth it.

    The pieces' outputs must be disjoint (``fn`` writes only into them).
    ``one_range_per_thread`` is for an ``fn`` that loops in Python (one
    NumPy call per kernel offset, as col2im does): the pool's usual extra
    ranges per thread multiply those calls, and with them the threads'
    turns at the GIL, which cost more than the balancing gains (LeNet's
    conv2 input gradient at 2 threads: 5.5 ms with the extra ranges, 4.3 ms
    with one range per thread, 6.7 ms on one thread).
    """
    if not isinstance(arrays[0], numpy.ndarray) or arrays[0].ndim == 0:
        fn(*arrays)
        return
    pieces = threads.plan(nbytes, 2)
    if pieces <= 1:
        fn(*arrays)
        return
    if axis is None:
        axis = _split_axis(arrays[0].shape)
    lead = (slice(None),) * axis

    def work(a: int, b: int) -> None:
        sl = lead + (slice(a, b),)
        fn(*[x[sl] for x in arrays])

    n = arrays[0].shape[axis]
    if one_range_per_thread:
        ranges = threads.split(n, threads.plan(nbytes, n))
        threads.parallel_for(lambda i: work(*ranges[i]), len(ranges))
        return
    threads.run_split(work, n, nbytes)


def _assign(dst: Any, src: Any) -> None:
    dst[...] = src


def par_assign(dst: Any, src: Any) -> None:
    """``dst[...] = src`` (same shapes), split over the intra-op threads."""
    par_apply(_assign, [dst, src], 2 * dst.size * dst.itemsize)


def _fill_zero(dst: Any) -> None:
    dst.fill(0)


def par_zero(dst: Any) -> None:
    """``dst.fill(0)``, split over the intra-op threads."""
    par_apply(_fill_zero, [dst], dst.size * dst.itemsize)


def matmul_into(a: Any, b: Any, out: Any, accumulate: bool = False) -> None:
    """``out = a @ b`` (``+=`` with ``accumulate``) for (G, M, K) @ (G, K, N):
    on NumPy cut into shape-fixed blocks on the intra-op threads, each one
    BLAS call on one BLAS thread (``functions.math._gemm_split``, the rule
    Linear and ``matmul`` use too), one GEMM elsewhere."""
    if isinstance(out, numpy.ndarray):
        _gemm_split.matmul_into(a, b, out, accumulate)
    elif accumulate:
        out += _xp(out).matmul(a, b)
    else:
        _xp(out).matmul(a, b, out=out)


def filter_from_kog(gW: Any, w_shape: tuple[int, ...], dtype: Any) -> Any:
    """A weight gradient computed as (G, K, Og) as the filter ``w_shape``
    (O, Cg, *k) in ``dtype``; on NumPy the transpose (and cast) is one copy
    split over the intra-op threads."""
    G, K, Og = gW.shape
    if not isinstance(gW, numpy.ndarray):
        return gW.swapaxes(-1, -2).reshape(w_shape).astype(dtype, copy=False)
    out = numpy.empty((G, Og, K), dtype=dtype)
    par_assign(out, gW.swapaxes(-1, -2))
    return out.reshape(w_shape)


def transposed_filter(W3: Any, cdt: Any) -> Any:
    """``W3`` (G, Cing, Coutg * k) as a contiguous (G, Coutg * k, Cing) of
    ``cdt``; on NumPy the transpose is split over the intra-op threads (a
    512x512 3x3 filter is 9 MiB, copied once per input gradient)."""
    if not isinstance(W3, numpy.ndarray):
        return _xp(W3).ascontiguousarray(W3.swapaxes(1, 2), dtype=cdt)
    W2 = numpy.empty((W3.shape[0], W3.shape[2], W3.shape[1]), dtype=cdt)
    par_assign(W2, W3.swapaxes(1, 2))
    return W2


def pad_input(
    x: Any,
    lo: tuple[int, ...],
    hi: tuple[int, ...],
    value: float = 0.0,
    dtype: Any = None,
) -> Any:
    """Pad the spatial axes (2:) of ``x``; returns ``x`` itself when no padding."""
    if dtype is None:
        dtype = x.dtype
    if not any(lo) and not any(hi) and dtype == x.dtype:
        return x
    xp = _xp(x)
    shape = x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], lo, hi))
    if value == 0:
        out = xp.zeros(shape, dtype=dtype)
    else:
        out = xp.full(shape, value, dtype=dtype)
    par_assign(
        out[
            (slice(None), slice(None))
            + tuple(slice(a, a + s) for a, s in zip(lo, x.shape[2:]))
        ],
        x,
    )
    return out


def window_view(
    xpad: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
    kernel_first: bool = True,
) -> Any:
    """Strided view ``(N, C, *k, *out)`` (or ``(N, C, *out, *k)``) of ``xpad``."""
    st = xpad.strides
    ks = tuple(a * b for a, b in zip(st[2:], d))
    os_ = tuple(a * b for a, b in zip(st[2:], s))
    if kernel_first:
        shape = xpad.shape[:2] + k + out
        strides = st[:2] + ks + os_
    else:
        shape = xpad.shape[:2] + out + k
        strides = st[:2] + os_ + ks
    return _as_strided(_xp(xpad))(xpad, shape=shape, strides=strides)
