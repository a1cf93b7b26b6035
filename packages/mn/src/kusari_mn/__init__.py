"""Multi-process data- and model-parallel training for kusari over MPI.

``import kusari_mn as chainermn`` runs ChainerMN code: communicators,
multi-node optimizers, dataset scattering, evaluators, snapshots and the
differentiable communication functions of model parallelism.

Example:
    >>> import kusari_mn
    >>> comm = kusari_mn.create_communicator('naive')  # doctest: +SKIP
    >>> optimizer = kusari_mn.create_multi_node_optimizer(
    ...     kusari.optimizers.Adam(), comm)  # doctest: +SKIP
"""

from kusari_mn import (
    communicators,
    datasets,
    extensions,
    functions,
    global_except_hook,
    iterators,
    links,
    optimizers,
)
from kusari_mn.communicators import CommunicatorBase, create_communicator
from kusari_mn.datasets import (
    DataSizeError,
    create_empty_dataset,
    scatter_dataset,
    scatter_index,
)
from kusari_mn.extensions import (
    GenericMultiNodeEvaluator,
    create_multi_node_checkpointer,
    create_multi_node_evaluator,
)
from kusari_mn.iterators import create_multi_node_iterator, create_synchronized_iterator
from kusari_mn.links import MultiNodeChainList
from kusari_mn.optimizers import create_multi_node_optimizer

__version__ = "0.1.0"

global_except_hook._add_hook_if_enabled()

__all__ = [
    "CommunicatorBase",
    "DataSizeError",
    "GenericMultiNodeEvaluator",
    "MultiNodeChainList",
    "communicators",
    "create_communicator",
    "create_empty_dataset",
    "create_multi_node_checkpointer",
    "create_multi_node_evaluator",
    "create_multi_node_iterator",
    "create_multi_node_optimizer",
    "create_synchronized_iterator",
    "datasets",
    "extensions",
    "functions",
    "global_except_hook",
    "iterators",
    "links",
    "optimizers",
    "scatter_dataset",
    "scatter_index",
]
