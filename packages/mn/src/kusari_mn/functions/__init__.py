"""Differentiable communication functions for model parallelism."""

from kusari_mn.functions.batch_normalization import multi_node_batch_normalization
from kusari_mn.functions.collective_communication import (
    allgather,
    alltoall,
    bcast,
    gather,
    scatter,
)
from kusari_mn.functions.point_to_point_communication import recv, send
from kusari_mn.functions.pseudo_connect import pseudo_connect

__all__ = [
    "allgather",
    "alltoall",
    "bcast",
    "gather",
    "multi_node_batch_normalization",
    "pseudo_connect",
    "recv",
    "scatter",
    "send",
]
