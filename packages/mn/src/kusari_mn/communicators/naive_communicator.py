"""``naive``: gradients averaged over MPI; CPU and GPU (through host memory)."""

from __future__ import annotations

from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class NaiveCommunicator(MpiCommunicatorBase):
    """Averages gradients with MPI only; runs on CPU and GPU (through host memory).

    On host memory this is the packed one-Allreduce implementation of
    :class:`~kusari_mn.communicators.mpi_communicator_base.MpiCommunicatorBase`
    (gradients in one persistent buffer, one in-place ``MPI_Allreduce``),
    which gives the same result as ChainerMN's algorithm of this name;
    only the route the bytes take inside the MPI library differs.
    """
