"""Communicators and :func:`create_communicator`."""

from __future__ import annotations

from typing import Any

from kusari_mn.communicators.communicator_base import CommunicatorBase
from kusari_mn.communicators.dummy_communicator import DummyCommunicator
from kusari_mn.communicators.flat_communicator import FlatCommunicator
from kusari_mn.communicators.hierarchical_communicator import HierarchicalCommunicator
from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase
from kusari_mn.communicators.naive_communicator import NaiveCommunicator
from kusari_mn.communicators.non_cuda_aware_communicator import (
    NonCudaAwareCommunicator,
)
from kusari_mn.communicators.pure_nccl_communicator import PureNcclCommunicator
from kusari_mn.communicators.single_node_communicator import SingleNodeCommunicator
from kusari_mn.communicators.two_dimensional_communicator import (
    TwoDimensionalCommunicator,
)

_COMMUNICATORS: dict[str, type[MpiCommunicatorBase]] = {
    "naive": NaiveCommunicator,
    "flat": FlatCommunicator,
    "hierarchical": HierarchicalCommunicator,
    "two_dimensional": TwoDimensionalCommunicator,
    "single_node": SingleNodeCommunicator,
    "non_cuda_aware": NonCudaAwareCommunicator,
    "pure_nccl": PureNcclCommunicator,
    "dummy": DummyCommunicator,
}


def create_communicator(
    communicator_name: str = "pure_nccl",
    mpi_comm: Any = None,
    allreduce_grad_dtype: Any = None,
    batched_copy: bool = True,
) -> MpiCommunicatorBase:
    """Create a communicator over ``mpi_comm`` (``MPI.COMM_WORLD`` by default).

    Args:
        communicator_name: ``'naive'``, ``'flat'``, ``'hierarchical'``,
            ``'two_dimensional'``, ``'single_node'`` (these work on CPU and
            GPU; on host memory they share one packed-Allreduce
            implementation), ``'non_cuda_aware'``, ``'pure_nccl'`` (GPU
            only) or ``'dummy'`` (no gradient transfer, for measurements).
        mpi_comm: An mpi4py communicator.
        allreduce_grad_dtype: dtype the gradients travel in (e.g.
            ``numpy.float16``); None keeps their own dtype.
        batched_copy: Accepted for ChainerMN compatibility (gradients are
            always packed in one pass).

    Returns:
        The communicator.

    Example:
        >>> import kusari_mn
        >>> comm = kusari_mn.create_communicator('naive')  # doctest: +SKIP
        >>> comm.rank, comm.size  # doctest: +SKIP
        (0, 1)
    """
    try:
        cls = _COMMUNICATORS[communicator_name]
    except KeyError:
        raise ValueError(
            f"create_communicator: unknown communicator_name "
            f"{communicator_name!r}; expected one of {sorted(_COMMUNICATORS)}"
        ) from None
    return cls(
        mpi_comm=mpi_comm,
        allreduce_grad_dtype=allreduce_grad_dtype,
        batched_copy=batched_copy,
    )


__all__ = [
    "CommunicatorBase",
    "DummyCommunicator",
    "FlatCommunicator",
    "HierarchicalCommunicator",
    "MpiCommunicatorBase",
    "NaiveCommunicator",
    "NonCudaAwareCommunicator",
    "PureNcclCommunicator",
    "SingleNodeCommunicator",
    "TwoDimensionalCommunicator",
    "create_communicator",
]
