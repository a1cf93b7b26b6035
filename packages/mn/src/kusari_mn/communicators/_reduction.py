"""Summing host buffers over MPI, float16 included.

MPI has no float16 type. Blocking sums of float16 buffers avoid a
user-defined MPI op (MPI would call back into Python once per segment)
and are built from two builtin collectives instead, the way a ring
Allreduce works: ``Alltoallv`` hands each rank every other rank's copy of
one slice of the buffer, the rank adds them up with NumPy (in float32, then
rounded once), and ``Allgatherv`` spreads the summed slices. That moves the
same bytes as a bandwidth-optimal Allreduce. Non-blocking sums
(double buffering) still use the user-defined op, which is the only way to
hand MPI a float16 reduction it can progress on its own.
"""

from __future__ import annotations

from typing import Any

import numpy
from mpi4py import MPI


def _half_sum(inbuf: Any, inoutbuf: Any, datatype: Any) -> None:
    # The buffer travels as 16-bit words; add them as float16.
    out = numpy.frombuffer(inoutbuf, dtype=numpy.float16)
    out += numpy.frombuffer(inbuf, dtype=numpy.float16)


_HALF_SUM_OP: Any = None


def sum_op_and_type(array: Any) -> tuple[Any, Any]:
    """The reduction and MPI datatype that sum ``array``'s dtype over MPI.

    float16 gets a user-defined op over 16-bit words; other dtypes get
    ``MPI.SUM`` on their own MPI type.

    Raises:
        TypeError: When MPI has no type for the dtype.
    """
    global _HALF_SUM_OP
    if array.dtype == numpy.float16:
        if _HALF_SUM_OP is None:
            _HALF_SUM_OP = MPI.Op.Create(_half_sum, commute=True)
        return _HALF_SUM_OP, MPI.UINT16_T
    try:
        mpi_type = MPI.Datatype.fromcode(array.dtype.char)
    except (KeyError, ValueError):
        raise TypeError(
            f"allreduce: dtype {array.dtype} cannot be summed over MPI"
        ) from None
    return MPI.SUM, mpi_type


class HalfAllreduce:
    """In-place sum of a float16 host buffer over the ranks, without a
    user-defined MPI op (see the module docstring).

    Scratch arrays are kept between calls (a step allocates nothing).
    """

    def __init__(self) -> None:
        self._scratch: dict[tuple[int, int], tuple[numpy.ndarray, numpy.ndarray]] = {}

    def __call__(self, mpi_comm: Any, buf: numpy.ndarray) -> None:
        """Replace ``buf`` (contiguous float16) by its sum over ``mpi_comm``."""
        size = mpi_comm.size
        if size == 1:
            return
        flat = buf.reshape(-1)
        base, extra = divmod(flat.size, size)
        counts = [base + (1 if i < extra else 0) for i in range(size)]
        displs = [0] * size
        for i in range(1, size):
            displs[i] = displs[i - 1] + counts[i - 1]
        rank = mpi_comm.rank
        mine = counts[rank]
        key = (size, mine)
        if key not in self._scratch:
            self._scratch[key] = (
                numpy.empty((size, mine), dtype=numpy.float16),
                numpy.empty(mine, dtype=numpy.float32),
            )
        pieces, acc = self._scratch[key]
        words = flat.view(numpy.uint16)
        mpi_comm.Alltoallv(
            [words, counts, displs, MPI.UINT16_T],
            [
                pieces.view(numpy.uint16),
                [mine] * size,
                [mine * i for i in range(size)],
                MPI.UINT16_T,
            ],
        )
        # Added in rank order on the one rank that owns the slice, so every
        # rank ends up with the same bits.
        start = displs[rank]
        if size == 2:
            # NumPy adds float16 in float32 and rounds once: the same bits
            # as the float32 accumulator below, in one pass.
            numpy.add(pieces[0], pieces[1], out=flat[start : start + mine])
        else:
            numpy.copyto(acc, pieces[0])
            for i in range(1, size):
                numpy.add(acc, pieces[i], out=acc)
            numpy.copyto(flat[start : start + mine], acc, casting="unsafe")
        mpi_comm.Allgatherv(MPI.IN_PLACE, [words, counts, displs, MPI.UINT16_T])


def allreduce_sum(
    mpi_comm: Any, buf: numpy.ndarray, half: HalfAllreduce | None = None
) -> None:
    """Sum a contiguous host buffer over ``mpi_comm`` in place.

    Args:
        mpi_comm: The mpi4py communicator.
        buf: C-contiguous NumPy array; float16 goes through ``half``.
        half: The float16 reducer to use (a fresh one if None).
    """
    if buf.dtype == numpy.float16:
        (half or HalfAllreduce())(mpi_comm, buf)
        return
    op, mpi_type = sum_op_and_type(buf)
    mpi_comm.Allreduce(MPI.IN_PLACE, [buf, mpi_type], op)
