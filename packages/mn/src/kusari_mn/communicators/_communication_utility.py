"""Helpers shared by the MPI communicators: rank layout, byte views, chunking."""

from __future__ import annotations

import pickle
from typing import Any

import numpy
from mpi4py import MPI

#: Default chunk size of object broadcasts: MPI counts are C ints, so one
#: message carries less than 2 GiB.
DEFAULT_MAX_BUF_LEN = 256 * 1024 * 1024


def init_ranks(mpi_comm: Any) -> tuple[int, int, int, int]:
    """``(intra_rank, intra_size, inter_rank, inter_size)`` from host names.

    Machines are numbered in the order of their lowest rank; ranks on one
    machine are numbered in rank order.
    """
    names = mpi_comm.allgather(MPI.Get_processor_name())
    mine = names[mpi_comm.rank]
    hosts = list(dict.fromkeys(names))
    return (
        names[: mpi_comm.rank].count(mine),
        names.count(mine),
        hosts.index(mine),
        len(hosts),
    )


def to_host(array: Any) -> tuple[numpy.ndarray, bool]:
    """``(host array, was on a device)``; CuPy arrays are copied to the host."""
    if isinstance(array, numpy.ndarray):
        return array, False
    if hasattr(array, "get") and hasattr(array, "__cuda_array_interface__"):
        return array.get(), True
    return numpy.asarray(array), False


def to_device_like(array: numpy.ndarray, on_device: bool) -> Any:
    """``array`` on the current CUDA device when ``on_device``."""
    if not on_device:
        return array
    import cupy  # only reached when CuPy arrays were sent, so CuPy exists

    return cupy.asarray(array)


def as_bytes(array: numpy.ndarray) -> numpy.ndarray:
    """A flat uint8 view of a C-contiguous copy of ``array``."""
    return numpy.ascontiguousarray(array).reshape(-1).view(numpy.uint8)


def header(array: numpy.ndarray) -> tuple[str, tuple[int, ...]]:
    return array.dtype.str, tuple(array.shape)


def from_bytes(buf: numpy.ndarray, head: tuple[str, tuple[int, ...]]) -> numpy.ndarray:
    dtype, shape = head
    return buf.view(numpy.dtype(dtype)).reshape(shape)


def nbytes(head: tuple[str, tuple[int, ...]]) -> int:
    dtype, shape = head
    return int(numpy.dtype(dtype).itemsize * numpy.prod(shape, dtype=numpy.int64))


def displacements(counts: list[int]) -> list[int]:
    out = [0]
    for c in counts[:-1]:
        out.append(out[-1] + c)
    return out


def chunked_bcast_obj(
    obj: Any, mpi_comm: Any, max_buf_len: int = DEFAULT_MAX_BUF_LEN, root: int = 0
) -> Any:
    """Broadcast a pickled object in pieces of at most ``max_buf_len`` bytes."""
    if max_buf_len <= 0:
        raise ValueError(f"bcast_obj: max_buf_len must be positive, got {max_buf_len}")
    if mpi_comm.rank == root:
        payload = numpy.frombuffer(
            pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=numpy.uint8
        )
        n = mpi_comm.bcast(len(payload), root=root)
    else:
        n = mpi_comm.bcast(None, root=root)
        payload = numpy.empty(n, dtype=numpy.uint8)
    for start in range(0, n, max_buf_len):
        piece = payload[start : start + max_buf_len]
        mpi_comm.Bcast([piece, MPI.BYTE], root=root)
    if mpi_comm.rank == root:
        return obj
    return pickle.loads(payload.tobytes())


def chunked_send_obj(
    obj: Any,
    mpi_comm: Any,
    dest: int,
    max_buf_len: int = DEFAULT_MAX_BUF_LEN,
    tag: int = 0,
) -> None:
    """Send a pickled object in pieces of at most ``max_buf_len`` bytes."""
    if max_buf_len <= 0:
        raise ValueError(f"send_obj: max_buf_len must be positive, got {max_buf_len}")
    payload = numpy.frombuffer(
        pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=numpy.uint8
    )
    mpi_comm.send((len(payload), max_buf_len), dest=dest, tag=tag)
    for start in range(0, len(payload), max_buf_len):
        mpi_comm.Send([payload[start : start + max_buf_len], MPI.BYTE], dest, tag)


def chunked_recv_obj(mpi_comm: Any, source: int, tag: int = 0) -> Any:
    """Receive an object sent by :func:`chunked_send_obj` (its chunk size)."""
    n, max_buf_len = mpi_comm.recv(source=source, tag=tag)
    payload = numpy.empty(n, dtype=numpy.uint8)
    for start in range(0, n, max_buf_len):
        mpi_comm.Recv([payload[start : start + max_buf_len], MPI.BYTE], source, tag)
    return pickle.loads(payload.tobytes())
