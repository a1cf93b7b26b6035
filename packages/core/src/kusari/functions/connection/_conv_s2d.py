"""Strided convolutions as stride-1 convolutions of the input's stride phases
(space to depth).

When each kernel extent ``k`` is a multiple of its stride ``s`` (the
Nature-DQN network's 8x8 stride 4 and 4x4 stride 2 layers, DCGAN's 4x4
stride 2 ones, patch embeddings with ``k == s``), splitting every padded
input plane into its ``s`` phases per axis,
``xq[n, (c, a), q] = x_pad[n, c, s * q + a]``, turns the convolution into
one of stride 1 with ``C * prod(s)`` input channels and kernel ``k / s``:
``W'[o, (c, a), t] = W[o, c, s * t + a]``.  The stride-1 convolution reads
its windows as contiguous runs, where the strided one gathered every
``s``-th element, and the weight gradient is the stride-1 one with its
filter axes put back.

The split pays where the stride-1 form then takes the sample blocks of
``_conv_sm_blocks`` (:func:`worth`): the DQN's first layer at batch 32,
one thread, ran forward 6.3 -> 5.0 ms and weight gradient 6.3 -> 5.1 ms
(the split itself 0.4 ms; split without the blocks: 6.9 and 6.5).  Its
second layer (32 -> 64 channels) ran as fast either way, and DCGAN's
layers (64 to 256 channels) up to 25% slower, input gradients included, so
those, and every transposed convolution, keep the strided kernels.

Each result element sums the same products as the strided kernels, in the
order of the stride-1 kernels (the bits differ from the strided path's, not
between thread counts).
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari.functions.connection import _conv_sm_blocks
from kusari.functions.connection._conv_common import _prod, _workspace, par_assign

# Tests set this to False to take the strided kernels.
ENABLED = True
# Workspace slot of the split input (the kernels' own slots are below 45).
_SLOT_Q = 45


def applicable(
    xp: Any, k: tuple[int, ...], s: tuple[int, ...], d: tuple[int, ...]
) -> bool:
    """Whether a NumPy convolution with kernel ``k``, stride ``s`` and
    dilation ``d`` runs as a stride-1 one here: some stride above one, each
    kernel extent a multiple of its stride, no dilation on a strided axis.
    """
    return (
        ENABLED
        and xp is numpy
        and any(v > 1 for v in s)
        and all(kk % ss == 0 and (ss == 1 or dd == 1) for kk, ss, dd in zip(k, s, d))
    )


def worth(
    xp: Any,
    x_shape: tuple[int, ...],
    k: tuple[int, ...],
    s: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
    cdt: Any,
) -> bool:
    """Whether a convolution of ``x_shape`` (forward or weight gradient)
    runs split into phases: :func:`applicable`, and the stride-1 form takes
    the sample blocks of ``_conv_sm_blocks`` (see the module docstring).
    """
    if not applicable(xp, k, s, d):
        return False
    S = _prod(s)
    shape = tuple(x_shape[:1]) + (x_shape[1] * S,) + phase_size(k, s, d, out)
    kq = tuple(kk // ss for kk, ss in zip(k, s))
    one, zero = (1,) * len(k), (0,) * len(k)
    return _conv_sm_blocks.applicable(xp, shape, kq, one, zero, out, cdt)


def phase_size(
    k: tuple[int, ...], s: tuple[int, ...], d: tuple[int, ...], out: tuple[int, ...]
) -> tuple[int, ...]:
    """Plane size of the split input: what a stride-1 convolution with
    kernel ``k / s`` (dilation ``d``) needs for ``out``."""
    return tuple(o + (kk // ss - 1) * dd for o, kk, ss, dd in zip(out, k, s, d))


def _split_shape(shape: tuple[int, ...], s: tuple[int, ...]) -> tuple[int, ...]:
    """(N, C, Q_1 * s_1, ...) as (N, C, Q_1, s_1, ...)."""
    return tuple(shape[:2]) + tuple(
        v for q, ss in zip(shape[2:], s) for v in (q // ss, ss)
    )


def _to_phases(nd: int) -> tuple[int, ...]:
    """(N, C, Q_1, s_1, ..., Q_n, s_n) -> (N, C, s_1, ..., s_n, Q_1, ..., Q_n)."""
    return (
        (0, 1)
        + tuple(3 + 2 * i for i in range(nd))
        + tuple(2 + 2 * i for i in range(nd))
    )


def _from_phases(nd: int) -> tuple[int, ...]:
    """The inverse of :func:`_to_phases`."""
    perm = _to_phases(nd)
    inv = [0] * len(perm)
    for i, a in enumerate(perm):
        inv[a] = i
    return tuple(inv)


def split_input(
    x: Any,
    k: tuple[int, ...],
    s: tuple[int, ...],
    p: tuple[int, ...],
    d: tuple[int, ...],
    out: tuple[int, ...],
) -> Any:
    """``x`` (N, C, *sp) padded and split into its stride phases:
    (N, C * prod(s), *Q), in this thread's scratch (valid until the next
    call here).

    Positions beyond ``x`` (padding, and the rows a cover-all output reads)
    are zero; input rows no window reads are left out.
    """
    nd = len(k)
    N, C = x.shape[:2]
    sp = tuple(x.shape[2:])
    Q = phase_size(k, s, d, out)
    full = tuple(q * ss for q, ss in zip(Q, s))
    # The part of x that lands inside the split planes.
    take = tuple(min(n, f - pp) for n, f, pp in zip(sp, full, p))
    S = _prod(s)
    raw = _workspace(_SLOT_Q, N * C * S * _prod(Q), x.dtype, numpy)
    xq = raw.reshape((N, C) + s + Q)
    if not any(p) and take == full:
        src = x[(slice(None), slice(None)) + tuple(slice(0, f) for f in full)]
    else:
        pad = numpy.zeros((N, C) + full, dtype=x.dtype)
        inner = (slice(None), slice(None)) + tuple(
            slice(pp, pp + t) for pp, t in zip(p, take)
        )
        pad[inner] = x[(slice(None), slice(None)) + tuple(slice(0, t) for t in take)]
        src = pad
    par_assign(xq, src.reshape(_split_shape(src.shape, s)).transpose(_to_phases(nd)))
    return xq.reshape((N, C * S) + Q)


def split_filter(W: Any, s: tuple[int, ...]) -> Any:
    """``W`` (A, B, *k) as the stride-1 filter (A, B * prod(s), *(k / s))."""
    nd = len(s)
    A, B = W.shape[:2]
    t = tuple(kk // ss for kk, ss in zip(W.shape[2:], s))
    # k = s * t + a: the kernel axis splits as (t, a).
    Wr = W.reshape((A, B) + tuple(v for tt, ss in zip(t, s) for v in (tt, ss)))
    return numpy.ascontiguousarray(Wr.transpose(_to_phases(nd))).reshape(
        (A, B * _prod(s)) + t
    )


def merge_filter(gq: Any, w_shape: tuple[int, ...], s: tuple[int, ...]) -> Any:
    """The inverse of :func:`split_filter`: ``gq`` as a filter ``w_shape``."""
    nd = len(s)
    A, B = w_shape[:2]
    t = tuple(gq.shape[2:])
    g = gq.reshape((A, B) + s + t).transpose(_from_phases(nd))
    return numpy.ascontiguousarray(g).reshape(w_shape)
