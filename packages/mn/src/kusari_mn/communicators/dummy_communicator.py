"""``dummy``: fills the gradient buffer like the real communicators, sends nothing."""

from __future__ import annotations

from typing import Any

from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase


class DummyCommunicator(MpiCommunicatorBase):
    """Measures the cost of everything except the gradient transfer.

    :meth:`multi_node_mean_grad` moves the gradients into the buffer and
    hands them back unchanged (no Allreduce, no averaging), so a job with this
    communicator trains each rank independently. Other collectives work
    over MPI as usual.
    """

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        grads = self._grads
        params = grads.select(model, zero_fill)
        grads.prepare(params)
        if params:
            grads.load(params)
            grads.store(params)
