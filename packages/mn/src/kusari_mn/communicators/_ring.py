"""The mean of a host buffer over MPI with the division fused into the sum.

``multi_node_mean_grad`` used to divide the gradient buffer by the number of
ranks (one NumPy pass over every byte) and then sum it with one in-place
``MPI_Allreduce``. On the development machine that pass cost as much as a
third of the Allreduce. Here the sum is a ring reduce-scatter over
``MPI_Sendrecv`` followed by an in-place ``MPI_Allgatherv``, the schedule
Open MPI and NCCL use for large buffers, written out so that each rank
multiplies its own, fully summed shard by ``1 / size`` while it is still in
cache: the division touches ``1 / size`` of the bytes, once, hot. Where
``1 / size`` is a power of two (2, 4, 8 ... ranks) the last step's add and
the division are one pass, OpenBLAS's ``axpby``
(:func:`kusari.utils.blas.axpby`): ``y = s * x + s * y`` rounded once is
``x + y`` rounded, then scaled exactly, so the bits are those of the two
passes, except where a term or the result falls
below float's smallest normal number (1.2e-38 in float32, 2.2e-308 in
float64), where scaling by a power of two rounds: a last-bit difference in
a gradient no update can feel.

Each of the ``size - 1`` ring steps moves one shard in segments of
:data:`SEGMENT_BYTES` (one ``Sendrecv`` and one ``numpy.add`` each), so the
received piece and the piece it is added to stay in cache. Where the buffer
is small, the ``size`` collectives' latency costs more than the pass saves;
:func:`ring_fits` says where the ring is used (thresholds measured once,
see ``docs/mn-scaling.md``).

Every rank computes the same sums in the same order and the allgather copies
each shard's bits to every rank, so all ranks end with identical results,
run after run.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

import numpy
from mpi4py import MPI

from kusari.utils import blas

#: Bytes moved per ``Sendrecv``: the received piece and the piece of the own
#: shard it is added to fit in a core's L2 cache together (measured best
#: among 256 KiB to 16 MiB on the development machine).
SEGMENT_BYTES = 1 << 20

#: The ring is used when every rank's shard has at least this many bytes.
#: Below it, one ``MPI_Allreduce`` after the scaling pass is faster (the
#: ring blocks ``size`` times or more to the Allreduce's once). Measured with
#: ``bench_allreduce.py --sweep`` at 2 ranks, ranks yielding on a busy
#: machine: the ring won from shards of 2-3.5 MiB on (docs/mn-scaling.md).
MIN_SHARD_BYTES = 2 << 20

#: dtypes summed by the ring (``numpy.add`` in the dtype itself, as MPI does).
RING_DTYPES = frozenset(numpy.dtype(t) for t in (numpy.float32, numpy.float64))


def ring_fits(
    dtype: Any, count: int, size: int, min_shard_bytes: int = MIN_SHARD_BYTES
) -> bool:
    """Whether :class:`RingMean` averages ``count`` elements of ``dtype``.

    Every rank must get the same answer for the same buffer, so it depends
    only on what all ranks agree on: the dtype, the element count and the
    number of ranks.
    """
    dtype = numpy.dtype(dtype)
    return (
        size > 1
        and dtype in RING_DTYPES
        and count * dtype.itemsize // size >= min_shard_bytes
    )


def shards(count: int, size: int) -> tuple[list[int], list[int]]:
    """Element counts and offsets of the ``size`` shards of ``count`` elements
    (the first ``count % size`` shards one element longer)."""
    base, extra = divmod(count, size)
    counts = [base + (1 if i < extra else 0) for i in range(size)]
    displs = [0] * size
    for i in range(1, size):
        displs[i] = displs[i - 1] + counts[i - 1]
    return counts, displs


class RingMean:
    """In-place mean of a contiguous float host buffer over an MPI communicator.

    The received segment's scratch array and the shard layout are kept
    between calls, so a call allocates nothing.

    Args:
        segment_bytes: Bytes per ``Sendrecv`` (see :data:`SEGMENT_BYTES`).
        fuse_scale: Add and divide in one pass (``axpby``) on the last
            step where that gives the same bits (see the module docstring);
            False keeps NumPy's two passes (to compare).
        stage_parts: Copy what is sent of ``parts`` into ``buf`` first
            (the segment in cache) rather than sending it from the part. The
            peer's kernel copy reads the sender's pages one by one: the
            buffer's huge pages quickly, a gradient array's 4 KiB heap pages
            slowly (see ``docs/mn-scaling.md``). False sends from the parts.
    """

    def __init__(
        self,
        segment_bytes: int = SEGMENT_BYTES,
        fuse_scale: bool = True,
        stage_parts: bool = True,
    ) -> None:
        if segment_bytes < 1:
            raise ValueError(
                f"RingMean: segment_bytes must be positive, got {segment_bytes}"
            )
        self.segment_bytes = segment_bytes
        self.fuse_scale = fuse_scale
        self.stage_parts = stage_parts
        self._scratch: dict[Any, numpy.ndarray] = {}
        self._layouts: dict[tuple[int, int], tuple[list[int], list[int]]] = {}

    def __call__(
        self,
        mpi_comm: Any,
        buf: numpy.ndarray,
        scale: float,
        parts: Sequence[tuple[int, numpy.ndarray]] = (),
    ) -> None:
        """Replace ``buf`` by ``scale`` times its sum over ``mpi_comm``.

        Collective: every rank calls it with a buffer of the same length and
        dtype.

        Args:
            mpi_comm: The mpi4py communicator.
            buf: One-dimensional C-contiguous float32 or float64 NumPy array.
            scale: The factor applied to the sum (``1 / size`` for a mean).
            parts: This rank's data for some ranges of ``buf`` that is not
                in ``buf`` yet: ``(offset, array)`` pairs, one-dimensional
                contiguous arrays of ``buf``'s dtype that do not overlap
                each other or ``buf``, sorted by offset. The ring sends them
                from where they are and adds them into ``buf`` as it goes,
                which saves copying them in first.

        Raises:
            TypeError: When ``buf`` is not such an array.
        """
        if (
            not isinstance(buf, numpy.ndarray)
            or buf.ndim != 1
            or buf.dtype not in RING_DTYPES
            or not buf.flags.c_contiguous
        ):
            raise TypeError(
                "RingMean: expected a one-dimensional contiguous float32 or "
                f"float64 NumPy array, got {type(buf).__name__} "
                f"{getattr(buf, 'dtype', '')} {getattr(buf, 'shape', '')}"
            )
        size = mpi_comm.size
        if size == 1:
            for off, part in parts:
                buf[off : off + part.size] = part
            if scale != 1.0:
                numpy.multiply(buf, scale, out=buf)
            return
        rank = mpi_comm.rank
        key = (buf.size, size)
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = shards(buf.size, size)
        counts, displs = layout
        seg = max(1, self.segment_bytes // buf.itemsize)
        longest = counts[0]
        # Every rank makes the same number of Sendrecv calls per step (the
        # longest shard's segments), so a shorter shard sends and receives
        # empty pieces instead of leaving its neighbours waiting.
        n_seg = -(-longest // seg)
        tmp = self._scratch.get(buf.dtype)
        if tmp is None or tmp.size < min(seg, longest):
            tmp = self._scratch[buf.dtype] = numpy.empty(min(seg, longest), buf.dtype)
        mpi_type = MPI.DOUBLE if buf.dtype == numpy.float64 else MPI.FLOAT
        local = _Local(buf, parts)
        fused = (
            self.fuse_scale
            and scale != 1.0
            and math.frexp(scale)[0] == 0.5  # a power of two: exact scaling
            and blas.available("axpby", buf.dtype)
        )
        axpby = blas.axpby
        right = (rank + 1) % size
        left = (rank - 1) % size
        sendrecv = mpi_comm.Sendrecv
        add = numpy.add
        for step in range(size - 1):
            # Shard (rank - step - 1) goes right; shard (rank - step - 2)
            # comes from the left and gets this rank's part added. After
            # the last step this rank holds the full sum of its own shard.
            # Each shard gets this rank's data added once, when it comes
            # in; the only shard sent without arriving first is the one of
            # step 0, which is this rank's data alone.
            out_shard = (rank - step - 1) % size
            in_shard = (rank - step - 2) % size
            s_lo, s_n = displs[out_shard], counts[out_shard]
            r_lo, r_n = displs[in_shard], counts[in_shard]
            last = step == size - 2
            for k in range(n_seg):
                off = k * seg
                a = min(seg, max(s_n - off, 0))
                b = min(seg, max(r_n - off, 0))
                lo = s_lo + off
                send = (
                    local.source(lo, lo + a, self.stage_parts)
                    if step == 0
                    else buf[lo : lo + a]
                )
                piece = tmp[:b]
                sendrecv([send, mpi_type], right, 0, [piece, mpi_type], left, 0)
                if not b:
                    continue
                lo = r_lo + off
                for x, y, src, in_part in local.pieces(lo, lo + b):
                    got = piece[x - lo : y - lo]
                    dst = buf[x:y]
                    if not last:
                        add(src, got, out=dst)
                    elif fused and not in_part and axpby(scale, got, scale, dst):
                        pass  # the whole sum of this piece, divided, one pass
                    else:
                        add(src, got, out=dst)
                        if scale != 1.0:
                            # the whole sum of this piece, still in cache
                            numpy.multiply(dst, scale, out=dst)
        mpi_comm.Allgatherv(MPI.IN_PLACE, [buf, counts, displs, mpi_type])


class _Local:
    """This rank's data for the ring: ``buf``, except where a part is."""

    def __init__(
        self, buf: numpy.ndarray, parts: Sequence[tuple[int, numpy.ndarray]]
    ) -> None:
        self.buf = buf
        self.parts = [(off, off + p.size, p) for off, p in parts]
        self.ends = [end for _, end, _ in self.parts]

    def pieces(self, lo: int, hi: int) -> list[tuple[int, int, numpy.ndarray, bool]]:
        """``(start, stop, data, in_part)`` covering ``[lo, hi)`` in order,
        ``data`` the local values of ``[start, stop)``, from a part or not."""
        buf = self.buf
        if not self.parts:
            return [(lo, hi, buf[lo:hi], False)]
        out = []
        i = bisect.bisect_right(self.ends, lo)  # first part ending after lo
        pos = lo
        while pos < hi:
            if i < len(self.parts) and self.parts[i][0] <= pos:
                start, end, part = self.parts[i]
                stop = min(hi, end)
                out.append((pos, stop, part[pos - start : stop - start], True))
                i += 1
            else:
                stop = hi if i == len(self.parts) else min(hi, self.parts[i][0])
                out.append((pos, stop, buf[pos:stop], False))
            pos = stop
        return out

    def source(self, lo: int, hi: int, stage: bool) -> numpy.ndarray:
        """The local values of ``[lo, hi)`` as one contiguous array: with
        ``stage``, always ``buf[lo:hi]`` (parts copied in); without it, a
        part itself where the range lies in one, else copied into ``buf``."""
        pieces = self.pieces(lo, hi)
        if len(pieces) == 1 and not (stage and pieces[0][3]):
            return pieces[0][2]
        buf = self.buf
        for start, stop, data, in_part in pieces:
            if in_part:
                buf[start:stop] = data
        return buf[lo:hi]
