"""Trainer: extension registration, ordering, loop, errors, serialization."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import build_real_trainer, mock_trainer

from kusari import training
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extension as extension_module


def test_stop_trigger_and_elapsed_time(tmp_path):
    trainer = mock_trainer(stop=(7, "iteration"), out=str(tmp_path / "o"))
    with pytest.raises(RuntimeError, match="not been started"):
        _ = trainer.elapsed_time
    assert trainer.is_before_training
    trainer.run()
    assert trainer.updater.iteration == 7
    assert trainer.updater.finalized
    assert trainer.elapsed_time >= 0
    assert (tmp_path / "o").is_dir()
    with pytest.raises(RuntimeError, match="twice"):
        trainer.run()


def test_extend_names_defaults_and_duplicates(tmp_path):
    trainer = mock_trainer(out=str(tmp_path))

    class Ext(training.Extension):
        def __call__(self, trainer):
            pass

    def fn(trainer):
        pass

    a, b = Ext(), Ext()
    trainer.extend(a)
    trainer.extend(b)
    trainer.extend(fn)
    trainer.extend(lambda t: None, name="custom")
    assert (a.name, b.name) == ("Ext", "Ext_1")
    assert trainer.get_extension("fn") is fn
    assert trainer.get_extension("custom") is not None
    with pytest.raises(ValueError, match="not found"):
        trainer.get_extension("nope")
    with pytest.raises(ValueError, match="training"):
        trainer.extend(Ext(), name="training")


def test_priority_order_triggers_and_call_before_training(tmp_path):
    trainer = mock_trainer(stop=(4, "iteration"), out=str(tmp_path))
    calls = []

    def make(tag):
        def ext(trainer):
            calls.append((tag, trainer.updater.iteration))
        return ext

    trainer.extend(make("reader"), priority=training.PRIORITY_READER)
    trainer.extend(make("writer"), priority=training.PRIORITY_WRITER)
    trainer.extend(make("every2"), trigger=(2, "iteration"),
                   priority=training.PRIORITY_EDITOR)
    trainer.extend(make("before"), trigger=(100, "iteration"),
                   call_before_training=True)
    trainer.run()
    assert calls[0] == ("before", 0)
    assert calls[1:4] == [("writer", 1), ("reader", 1), ("writer", 2)]
    assert ("every2", 2) in calls and ("every2", 4) in calls
    assert ("every2", 1) not in calls
    assert calls.index(("every2", 2)) < calls.index(("reader", 2))


def test_make_extension_defaults_are_used(tmp_path):
    trainer = mock_trainer(stop=(4, "iteration"), out=str(tmp_path))
    seen = []
    inits = []

    @training.make_extension(trigger=(2, "iteration"), priority=250,
                             initializer=lambda t: inits.append(1))
    def ext(trainer):
        seen.append(trainer.updater.iteration)

    trainer.extend(ext)
    trainer.run()
    assert seen == [2, 4] and inits == [1]
    assert ext.default_name == "ext" and ext.priority == 250


def test_errors_call_on_error_and_finalize(tmp_path, capsys):
    trainer = mock_trainer(stop=(10, "iteration"), out=str(tmp_path))
    log = []

    class Ext(extension_module.Extension):
        def __call__(self, trainer):
            if trainer.updater.iteration == 3:
                raise ValueError("boom")

        def on_error(self, trainer, exc, tb):
            log.append(("error", str(exc)))

        def finalize(self):
            log.append(("finalize",))

    trainer.extend(Ext())
    with pytest.raises(ValueError, match="boom"):
        trainer.run()
    assert log == [("error", "boom"), ("finalize",)]
    assert trainer.updater.finalized
    assert "Exception in main training loop: boom" in capsys.readouterr().err


def test_serialize_round_trip(tmp_path):
    trainer = mock_trainer(stop=(5, "iteration"), out=str(tmp_path))
    trainer.extend(lambda t: None, name="x", trigger=(2, "iteration"))
    trainer.run()
    s = DictionarySerializer()
    trainer.serialize(s)
    assert int(s.target["updater/iteration"]) == 5
    assert "extension_triggers/x/previous_iteration" in s.target
    assert "stop_trigger/previous_iteration" in s.target
    fresh = mock_trainer(stop=(5, "iteration"), out=str(tmp_path))
    fresh.extend(lambda t: None, name="x", trigger=(2, "iteration"))
    fresh.serialize(NpzDeserializer(s.target))
    assert fresh.updater.iteration == 5
    assert fresh._snapshot_elapsed_time == pytest.approx(
        float(s.target["_snapshot_elapsed_time"]))


def test_real_training_reduces_loss(tmp_path):
    from kusari.training import extensions

    trainer = build_real_trainer(tmp_path, stop=(15, "epoch"))
    trainer.extend(extensions.LogReport(trigger=(1, "epoch"), filename=None))
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert len(log) == 15
    assert log[-1]["main/loss"] < log[0]["main/loss"]
    assert np.isfinite(log[-1]["main/accuracy"])
    assert trainer.updater.get_optimizer("main").epoch == 15
