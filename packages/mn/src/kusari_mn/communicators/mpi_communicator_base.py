"""MPI communicator: every collective over mpi4py, gradients in one Allreduce."""

from __future__ import annotations

from typing import Any

import numpy
from mpi4py import MPI

from kusari_mn.communicators import _communication_utility as cu
from kusari_mn.communicators._mean_grad import GradMeanMixin
from kusari_mn.communicators._memory_utility import GradBuffer
from kusari_mn.communicators._reduction import (
    HalfAllreduce,
    allreduce_sum,
    sum_op_and_type,
)
from kusari_mn.communicators._ring import RingMean
from kusari_mn.communicators.communicator_base import CommunicatorBase


def _as_sequence(xs: Any, size: int, caller: str) -> list[Any]:
    if isinstance(xs, (list, tuple)):
        items = list(xs)
    elif hasattr(xs, "shape") and len(xs.shape) >= 1:
        items = [xs[i] for i in range(xs.shape[0])]
    else:
        raise TypeError(
            f"{caller}: expected a tuple of {size} arrays (or an array whose "
            f"first axis is {size}), got {type(xs).__name__}"
        )
    if len(items) != size:
        raise ValueError(
            f"{caller}: expected {size} arrays (one per rank), got {len(items)}"
        )
    return items


class MpiCommunicatorBase(GradMeanMixin, CommunicatorBase):
    """A communicator over an mpi4py communicator.

    Arrays are moved as raw bytes after a small pickled header, so any dtype
    works and shapes may differ between ranks where the collective allows it.
    CuPy arrays are staged through host memory (the MPI library is not
    assumed to be CUDA-aware) and come back on the current device.

    Gradients are averaged by packing all of them into one persistent
    buffer and running one in-place ``Allreduce`` (see
    :meth:`multi_node_mean_grad`).

    Args:
        mpi_comm: The mpi4py communicator (``MPI.COMM_WORLD`` by default).
        allreduce_grad_dtype: dtype of the gradient buffer on the wire
            (e.g. ``numpy.float16`` halves the bytes); None keeps the
            gradients' dtype.
        batched_copy: Accepted for ChainerMN compatibility; the packing is
            always one pass over the gradients.
    """

    def __init__(
        self,
        mpi_comm: Any = None,
        allreduce_grad_dtype: Any = None,
        batched_copy: bool = True,
    ) -> None:
        self.mpi_comm = MPI.COMM_WORLD if mpi_comm is None else mpi_comm
        (self._intra_rank, self._intra_size, self._inter_rank, self._inter_size) = (
            cu.init_ranks(self.mpi_comm)
        )
        self.allreduce_grad_dtype = (
            None if allreduce_grad_dtype is None else numpy.dtype(allreduce_grad_dtype)
        )
        if (
            self.allreduce_grad_dtype is not None
            and self.allreduce_grad_dtype.kind != "f"
        ):
            raise ValueError(
                f"{type(self).__name__}: allreduce_grad_dtype must be a float "
                f"dtype, got {self.allreduce_grad_dtype}"
            )
        self.batched_copy = batched_copy
        self._grads = GradBuffer(self.allreduce_grad_dtype)
        self._flag = numpy.zeros(2, dtype=numpy.int32)  # for _on_any_rank
        self._half = HalfAllreduce()
        self._ring = RingMean()
        self._owns_mpi_comm = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank}, size={self.size})"

    @property
    def rank(self) -> int:
        return int(self.mpi_comm.rank)

    @property
    def size(self) -> int:
        return int(self.mpi_comm.size)

    @property
    def intra_rank(self) -> int:
        return self._intra_rank

    @property
    def intra_size(self) -> int:
        return self._intra_size

    @property
    def inter_rank(self) -> int:
        return self._inter_rank

    @property
    def inter_size(self) -> int:
        return self._inter_size

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        if name == "batched_copy":
            self.batched_copy = bool(value)
        else:
            super().set_config(name, value, **kwargs)

    def get_config(self, name: str | None = None) -> Any:
        if name == "batched_copy":
            return self.batched_copy
        return super().get_config(name)

    def split(self, color: int, key: int) -> MpiCommunicatorBase:
        comm = type(self)(
            mpi_comm=self.mpi_comm.Split(color, key),
            allreduce_grad_dtype=self.allreduce_grad_dtype,
            batched_copy=self.batched_copy,
        )
        comm._owns_mpi_comm = True  # made here, so finalize frees it
        return comm

    def _check_rank(self, rank: int, what: str, caller: str) -> None:
        if not 0 <= rank < self.size:
            raise ValueError(
                f"{caller}: {what} must be in [0, {self.size}), got {rank}"
            )

    # -- arrays ----------------------------------------------------------------
    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        self._check_rank(dest, "dest", "send")
        is_tuple = isinstance(data, (list, tuple))
        items = list(data) if is_tuple else [data]
        hosts = []
        on_device = False
        for x in items:
            h, dev = cu.to_host(x)
            hosts.append(h)
            on_device = on_device or dev
        heads = [cu.header(h) for h in hosts]
        self.mpi_comm.send((is_tuple, on_device, heads), dest=dest, tag=tag)
        payload = (
            numpy.concatenate([cu.as_bytes(h) for h in hosts])
            if hosts
            else numpy.empty(0, numpy.uint8)
        )
        self.mpi_comm.Send([payload, MPI.BYTE], dest=dest, tag=tag)

    def recv(self, source: int, tag: int = 0) -> Any:
        self._check_rank(source, "source", "recv")
        is_tuple, on_device, heads = self.mpi_comm.recv(source=source, tag=tag)
        sizes = [cu.nbytes(h) for h in heads]
        payload = numpy.empty(sum(sizes), dtype=numpy.uint8)
        self.mpi_comm.Recv([payload, MPI.BYTE], source=source, tag=tag)
        out = []
        for h, off, n in zip(heads, cu.displacements(sizes), sizes, strict=True):
            arr = cu.from_bytes(payload[off : off + n], h)
            out.append(cu.to_device_like(arr, on_device))
        return tuple(out) if is_tuple else out[0]

    def bcast(self, data: Any, root: int = 0) -> Any:
        self._check_rank(root, "root", "bcast")
        if self.rank == root:
            if isinstance(data, (list, tuple)):
                raise TypeError("bcast: expected one array, got a tuple")
            host, dev = cu.to_host(data)
            self.mpi_comm.bcast((cu.header(host), dev), root=root)
            self.mpi_comm.Bcast([cu.as_bytes(host), MPI.BYTE], root=root)
            return data
        head, dev = self.mpi_comm.bcast(None, root=root)
        buf = numpy.empty(cu.nbytes(head), dtype=numpy.uint8)
        self.mpi_comm.Bcast([buf, MPI.BYTE], root=root)
        return cu.to_device_like(cu.from_bytes(buf, head), dev)

    def gather(self, data: Any, root: int = 0) -> Any:
        self._check_rank(root, "root", "gather")
        host, dev = cu.to_host(data)
        heads = self.mpi_comm.gather(cu.header(host), root=root)
        sbuf = cu.as_bytes(host)
        if self.rank != root:
            self.mpi_comm.Gatherv([sbuf, MPI.BYTE], None, root=root)
            return None
        assert heads is not None  # the root receives every header
        counts = [cu.nbytes(h) for h in heads]
        rbuf = numpy.empty(sum(counts), dtype=numpy.uint8)
        displs = cu.displacements(counts)
        self.mpi_comm.Gatherv([sbuf, MPI.BYTE], [rbuf, counts, displs, MPI.BYTE], root)
        return tuple(
            cu.to_device_like(cu.from_bytes(rbuf[o : o + n], h), dev)
            for h, o, n in zip(heads, displs, counts, strict=True)
        )

    def allgather(self, data: Any) -> tuple[Any, ...]:
        host, dev = cu.to_host(data)
        heads = self.mpi_comm.allgather(cu.header(host))
        counts = [cu.nbytes(h) for h in heads]
        rbuf = numpy.empty(sum(counts), dtype=numpy.uint8)
        displs = cu.displacements(counts)
        self.mpi_comm.Allgatherv(
            [cu.as_bytes(host), MPI.BYTE], [rbuf, counts, displs, MPI.BYTE]
        )
        return tuple(
            cu.to_device_like(cu.from_bytes(rbuf[o : o + n], h), dev)
            for h, o, n in zip(heads, displs, counts, strict=True)
        )

    def allreduce(self, data: Any) -> Any:
        host, dev = cu.to_host(data)
        heads = self.mpi_comm.allgather(cu.header(host))
        if any(h != heads[0] for h in heads):
            raise ValueError(
                "allreduce: every rank must give an array of the same dtype and "
                f"shape, got {heads}"
            )
        buf = numpy.array(host, copy=True, order="C")
        sum_op_and_type(buf)  # a clear TypeError for dtypes MPI cannot sum
        allreduce_sum(self.mpi_comm, buf, self._half)
        return cu.to_device_like(buf, dev)

    def scatter(self, xs: Any, root: int = 0) -> Any:
        self._check_rank(root, "root", "scatter")
        if self.rank == root:
            items = _as_sequence(xs, self.size, "scatter")
            hosts = []
            dev = False
            for x in items:
                h, d = cu.to_host(x)
                hosts.append(h)
                dev = dev or d
            heads = [cu.header(h) for h in hosts]
            head, dev = self.mpi_comm.scatter([(h, dev) for h in heads], root=root)
            counts = [cu.nbytes(h) for h in heads]
            sbuf = numpy.concatenate([cu.as_bytes(h) for h in hosts])
            send_spec: Any = [sbuf, counts, cu.displacements(counts), MPI.BYTE]
        else:
            head, dev = self.mpi_comm.scatter(None, root=root)
            send_spec = None
        rbuf = numpy.empty(cu.nbytes(head), dtype=numpy.uint8)
        self.mpi_comm.Scatterv(send_spec, [rbuf, MPI.BYTE], root=root)
        return cu.to_device_like(cu.from_bytes(rbuf, head), dev)

    def alltoall(self, xs: Any) -> tuple[Any, ...]:
        items = _as_sequence(xs, self.size, "alltoall")
        hosts = []
        dev = False
        for x in items:
            h, d = cu.to_host(x)
            hosts.append(h)
            dev = dev or d
        heads = self.mpi_comm.alltoall([cu.header(h) for h in hosts])
        scounts = [h.nbytes for h in hosts]
        rcounts = [cu.nbytes(h) for h in heads]
        sbuf = numpy.concatenate([cu.as_bytes(h) for h in hosts])
        rbuf = numpy.empty(sum(rcounts), dtype=numpy.uint8)
        rdispls = cu.displacements(rcounts)
        self.mpi_comm.Alltoallv(
            [sbuf, scounts, cu.displacements(scounts), MPI.BYTE],
            [rbuf, rcounts, rdispls, MPI.BYTE],
        )
        return tuple(
            cu.to_device_like(cu.from_bytes(rbuf[o : o + n], h), dev)
            for h, o, n in zip(heads, rdispls, rcounts, strict=True)
        )

    # -- objects ---------------------------------------------------------------
    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        self._check_rank(dest, "dest", "send_obj")
        self.mpi_comm.send(obj, dest=dest, tag=tag)

    def recv_obj(self, source: int, status: Any = None, tag: int = MPI.ANY_TAG) -> Any:
        self._check_rank(source, "source", "recv_obj")
        return self.mpi_comm.recv(source=source, status=status, tag=tag)

    def bcast_obj(self, obj: Any, max_buf_len: int | None = None, root: int = 0) -> Any:
        self._check_rank(root, "root", "bcast_obj")
        return cu.chunked_bcast_obj(
            obj, self.mpi_comm, max_buf_len or cu.DEFAULT_MAX_BUF_LEN, root
        )

    def send_obj_chunked(
        self, obj: Any, dest: int, max_buf_len: int | None = None, tag: int = 0
    ) -> None:
        """:meth:`send_obj` for objects of any size (pieces of ``max_buf_len``)."""
        self._check_rank(dest, "dest", "send_obj_chunked")
        cu.chunked_send_obj(
            obj, self.mpi_comm, dest, max_buf_len or cu.DEFAULT_MAX_BUF_LEN, tag
        )

    def recv_obj_chunked(self, source: int, tag: int = 0) -> Any:
        """Receive what :meth:`send_obj_chunked` sent."""
        self._check_rank(source, "source", "recv_obj_chunked")
        return cu.chunked_recv_obj(self.mpi_comm, source, tag)

    def gather_obj(self, obj: Any, root: int = 0) -> Any:
        self._check_rank(root, "root", "gather_obj")
        return self.mpi_comm.gather(obj, root=root)

    def allgather_obj(self, obj: Any) -> list[Any]:
        """A list of every rank's object, on every rank."""
        return list(self.mpi_comm.allgather(obj))

    def scatter_obj(self, objs: Any, root: int = 0) -> Any:
        """Rank ``i`` gets ``objs[i]`` of ``root``'s sequence."""
        self._check_rank(root, "root", "scatter_obj")
        if self.rank == root and len(objs) != self.size:
            raise ValueError(
                f"scatter_obj: expected {self.size} objects, got {len(objs)}"
            )
        return self.mpi_comm.scatter(objs, root=root)

    def allreduce_obj(self, obj: Any) -> Any:
        return self.mpi_comm.allreduce(obj, op=MPI.SUM)

    # -- models ----------------------------------------------------------------
    def bcast_data(self, model: Any) -> None:
        """Overwrite every rank's parameters with rank 0's, in one Bcast."""
        params = sorted(model.namedparams(include_uninit=False), key=lambda p: p[0])
        sig = [(name, p.array.shape, p.array.dtype.str) for name, p in params]
        sigs = self.mpi_comm.allgather(sig)
        if any(s != sigs[0] for s in sigs):
            raise ValueError(
                "bcast_data: the ranks' models have different parameters "
                "(names, shapes or dtypes); build the same model on every rank"
            )
        if not params:
            return
        hosts = [cu.to_host(p.array)[0] for _, p in params]
        buf = numpy.concatenate([cu.as_bytes(h) for h in hosts])
        self.mpi_comm.Bcast([buf, MPI.BYTE], root=0)
        if self.rank == 0:
            return
        offset = 0
        for (_, param), host in zip(params, hosts, strict=True):
            n = host.nbytes
            value = cu.from_bytes(buf[offset : offset + n], cu.header(host))
            offset += n
            if isinstance(param.array, numpy.ndarray):
                numpy.copyto(param.array, value)
            else:
                param.array.set(numpy.ascontiguousarray(value))

    def finalize(self) -> None:
        """Free the MPI communicator if :meth:`split` made it."""
        if self._owns_mpi_comm and self.mpi_comm != MPI.COMM_NULL:
            self.mpi_comm.Free()
            self._owns_mpi_comm = False
