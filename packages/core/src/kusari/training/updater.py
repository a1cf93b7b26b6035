"""Compatibility module: ``kusari.training.updater``."""

from kusari.training._updater import Updater
from kusari.training.updaters.parallel_updater import ParallelUpdater
from kusari.training.updaters.standard_updater import StandardUpdater

__all__ = ["ParallelUpdater", "StandardUpdater", "Updater"]
