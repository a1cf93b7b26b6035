"""``pure_nccl``: GPU gradients averaged by NCCL, everything else over MPI."""

from __future__ import annotations

from typing import Any

import numpy

from kusari_mn.communicators._gpu import require_nccl
from kusari_mn.communicators._memory_utility import GradGroup
from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class PureNcclCommunicator(MpiCommunicatorBase):
    """Averages the flat GPU gradient buffer with one ``ncclAllReduce``.

    The NCCL communicator is set up on first use (after the user has chosen
    the device), from a unique id that rank 0 broadcasts over MPI. Array
    and object collectives go over MPI through host memory. With
    ``allreduce_grad_dtype=numpy.float16`` the buffer is reduced in float16
    by NCCL itself.

    Raises RuntimeError at creation when CuPy, a GPU or NCCL is missing.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._cupy, self._nccl = require_nccl("pure_nccl")
        super().__init__(*args, **kwargs)
        self._nccl_comm: Any = None

    def _get_nccl_comm(self) -> Any:
        if self._nccl_comm is None:
            uid = self._nccl.get_unique_id() if self.rank == 0 else None
            uid = self.mpi_comm.bcast(uid, root=0)
            self._nccl_comm = self._nccl.NcclCommunicator(self.size, uid, self.rank)
        return self._nccl_comm

    def _fuses_mean(self, group: GradGroup) -> bool:
        # NCCL reduces device buffers where they lie; the host ring only
        # takes host gradients.
        return not group.on_device and super()._fuses_mean(group)

    def _allreduce_grad_group(self, group: GradGroup) -> None:
        # The gradients' device buffer (same views-into-one-buffer scheme as
        # on host) is reduced where it lies; host gradients go over MPI.
        if not group.on_device:
            super()._allreduce_grad_group(group)
            return
        nccl = self._nccl
        kinds = {
            numpy.dtype(numpy.float16): nccl.NCCL_FLOAT16,
            numpy.dtype(numpy.float32): nccl.NCCL_FLOAT32,
            numpy.dtype(numpy.float64): nccl.NCCL_FLOAT64,
        }
        buf = group.wire
        try:
            kind = kinds[buf.dtype]
        except KeyError:
            raise TypeError(
                f"pure_nccl: gradients of dtype {buf.dtype} cannot be reduced"
            ) from None
        stream = self._cupy.cuda.get_current_stream()
        self._get_nccl_comm().allReduce(
            buf.data.ptr, buf.data.ptr, buf.size, kind, nccl.NCCL_SUM, stream.ptr
        )

    def finalize(self) -> None:
        if self._nccl_comm is not None:
            self._nccl_comm.destroy()
            self._nccl_comm = None
        super().finalize()
