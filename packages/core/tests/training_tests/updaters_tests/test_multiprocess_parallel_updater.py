"""MultiprocessParallelUpdater: unavailable in kusari (no NCCL), and says so."""

from __future__ import annotations

import pytest

from kusari.training import updaters


def test_multiprocess_parallel_updater_is_unavailable():
    assert not updaters.MultiprocessParallelUpdater.available()
    with pytest.raises(RuntimeError):
        updaters.MultiprocessParallelUpdater()


def test_the_error_names_the_alternatives_whatever_the_arguments():
    with pytest.raises(RuntimeError, match="NCCL") as info:
        updaters.MultiprocessParallelUpdater([], None, devices=[0, 1])
    assert "StandardUpdater" in str(info.value)
    assert "ParallelUpdater" in str(info.value)
