"""``single_node``: gradients averaged among the processes of one machine."""

from __future__ import annotations

from typing import Any

from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class SingleNodeCommunicator(MpiCommunicatorBase):
    """Averages gradients among the processes of one machine.

    On host memory this is the packed one-Allreduce implementation of
    :class:`~kusari_mn.communicators.mpi_communicator_base.MpiCommunicatorBase`
    (gradients in one persistent buffer, one in-place ``MPI_Allreduce``),
    which gives the same result as ChainerMN's algorithm of this name;
    only the route the bytes take inside the MPI library differs.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.inter_size != 1:
            raise ValueError(
                "single_node communicator: every process must run on one "
                f"machine, but the job spans {self.inter_size} machines; use "
                "'hierarchical' or 'flat'"
            )
