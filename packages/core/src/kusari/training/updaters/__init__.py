"""Updaters: run one training step (fetch a batch, compute the loss, update)."""

from kusari.training.updaters.multiprocess_parallel_updater import (
    MultiprocessParallelUpdater,
)
from kusari.training.updaters.parallel_updater import ParallelUpdater
from kusari.training.updaters.standard_updater import StandardUpdater

__all__ = ["MultiprocessParallelUpdater", "ParallelUpdater", "StandardUpdater"]
