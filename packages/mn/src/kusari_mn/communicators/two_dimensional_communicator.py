"""``two_dimensional``: 2-D (intra x inter node) reduction; one Allreduce on CPU."""

from __future__ import annotations

from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class TwoDimensionalCommunicator(MpiCommunicatorBase):
    """Averages gradients with a 2-D (intra-node x inter-node) reduction.

    On host memory this is the packed one-Allreduce implementation of
    :class:`~kusari_mn.communicators.mpi_communicator_base.MpiCommunicatorBase`
    (gradients in one persistent buffer, one in-place ``MPI_Allreduce``),
    which gives the same result as ChainerMN's algorithm of this name;
    only the route the bytes take inside the MPI library differs.
    """
