"""Trainer extensions for multi-process training."""

from kusari_mn.extensions._multi_node_snapshot import multi_node_snapshot
from kusari_mn.extensions.allreduce_persistent import AllreducePersistent
from kusari_mn.extensions.checkpoint import create_multi_node_checkpointer
from kusari_mn.extensions.multi_node_early_stopping_trigger import (
    MultiNodeEarlyStoppingTrigger,
)
from kusari_mn.extensions.multi_node_evaluator import (
    GenericMultiNodeEvaluator,
    create_multi_node_evaluator,
)
from kusari_mn.extensions.observation_aggregator import ObservationAggregator

__all__ = [
    "AllreducePersistent",
    "GenericMultiNodeEvaluator",
    "MultiNodeEarlyStoppingTrigger",
    "ObservationAggregator",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "multi_node_snapshot",
]
