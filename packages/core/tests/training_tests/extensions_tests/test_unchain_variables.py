"""unchain_variables: release the graphs of reported variables."""

from __future__ import annotations

import numpy as np
from _training_helpers import build_real_trainer

import kusari
from kusari.training import extensions


def test_unchain_variables(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    kept = []
    trainer.extend(
        lambda tr: kept.append(tr.observation["main/loss"]), name="k", priority=50
    )
    trainer.extend(extensions.unchain_variables())
    with kusari.using_config("keep_graph_on_report", True):
        trainer.run()
    assert kept[0].creator is None


def test_only_variables_are_touched_and_their_values_stay():
    x = kusari.Variable(np.arange(3, dtype=np.float32))
    y = x * 2
    z = y + 1
    other = x * 3  # not in the observation: keeps its graph

    class Trainer:
        observation = {"z": z, "n": 3.0, "a": np.ones(2)}

    extensions.unchain_variables()(Trainer())
    # The whole graph behind a reported variable is released.
    assert z.creator is None and y.creator is None
    assert other.creator is not None
    np.testing.assert_array_equal(z.array, [1, 3, 5])
    assert Trainer.observation["n"] == 3.0


def test_runs_every_iteration_after_every_other_extension():
    ext = extensions.unchain_variables()
    assert ext.trigger == (1, "iteration")
    assert ext.priority < kusari.training.PRIORITY_READER
