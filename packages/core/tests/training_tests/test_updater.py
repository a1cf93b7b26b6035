"""The Updater interface (``_updater``) and the ``training.updater`` compat
module."""

from __future__ import annotations

import pytest

from kusari import training
from kusari.training import updater as updater_compat
from kusari.training import updaters


def test_compat_module():
    assert updater_compat.StandardUpdater is updaters.StandardUpdater
    assert training.Updater is updater_compat.Updater
    assert updater_compat.ParallelUpdater is updaters.ParallelUpdater


def test_base_updater_hooks_are_no_ops_and_the_rest_is_abstract():
    base = training.Updater()
    assert base.connect_trainer(object()) is None
    assert base.finalize() is None
    for call in (
        base.update,
        base.get_all_optimizers,
        lambda: base.get_optimizer("main"),
        lambda: base.serialize(None),
    ):
        with pytest.raises(NotImplementedError):
            call()


def test_the_standard_updaters_are_updaters():
    assert issubclass(updaters.StandardUpdater, training.Updater)
    assert issubclass(updaters.ParallelUpdater, training.Updater)
