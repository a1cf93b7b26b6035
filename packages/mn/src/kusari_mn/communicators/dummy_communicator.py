"""``dummy``: packs gradients like the real communicators but sends nothing."""

from __future__ import annotations

from typing import Any

from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class DummyCommunicator(MpiCommunicatorBase):
    """Measures the cost of everything except the gradient transfer.

    :meth:`multi_node_mean_grad` packs the gradients into the buffer and
    unpacks them unchanged (no Allreduce, no averaging), so a job with this
    communicator trains each rank independently. Other collectives work
    over MPI as usual.
    """

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        packer = self._packer
        params = packer.select(model, zero_fill)
        packer.prepare(params)
        if params:
            packer.pack(params)
            packer.hand_out(params)
