"""Training loop: Trainer, updaters, extensions and triggers.

Example:
    >>> from kusari import training
    >>> training.get_trigger((1, 'epoch'))
    IntervalTrigger(1, 'epoch')
"""

from kusari.training import (
    extension,
    extensions,
    trainer,
    trigger,
    triggers,
    updater,
    updaters,
    util,
)
from kusari.training._updater import Updater
from kusari.training.extension import (
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_WRITER,
    Extension,
    make_extension,
)
from kusari.training.trainer import Trainer
from kusari.training.triggers.interval_trigger import IntervalTrigger
from kusari.training.updaters.parallel_updater import ParallelUpdater
from kusari.training.updaters.standard_updater import StandardUpdater
from kusari.training.util import get_trigger

__all__ = [
    "PRIORITY_EDITOR",
    "PRIORITY_READER",
    "PRIORITY_WRITER",
    "Extension",
    "IntervalTrigger",
    "ParallelUpdater",
    "StandardUpdater",
    "Trainer",
    "Updater",
    "extension",
    "extensions",
    "get_trigger",
    "make_extension",
    "trainer",
    "triggers",
    "updaters",
    "util",
]
