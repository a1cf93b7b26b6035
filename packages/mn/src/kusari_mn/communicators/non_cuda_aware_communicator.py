"""``non_cuda_aware``: GPU gradients averaged by an MPI that cannot read GPU memory."""

from __future__ import annotations

from typing import Any

from kusari_mn.communicators._gpu import require_cupy
from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class NonCudaAwareCommunicator(MpiCommunicatorBase):
    """Packs GPU gradients on the device, copies the one buffer to host
    memory, averages it with one MPI Allreduce and copies it back.

    Raises RuntimeError at creation when CuPy or a GPU is missing.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        require_cupy("non_cuda_aware")
        super().__init__(*args, **kwargs)
