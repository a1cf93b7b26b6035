"""Trainer: extension registration, ordering, loop, errors, serialization."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from _training_helpers import build_real_trainer, mock_trainer

from kusari import training
from kusari.serializers import DictionarySerializer, NpzDeserializer
from kusari.training import extension as extension_module
from kusari.training import triggers


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
    trainer.extend(
        make("every2"), trigger=(2, "iteration"), priority=training.PRIORITY_EDITOR
    )
    trainer.extend(
        make("before"), trigger=(100, "iteration"), call_before_training=True
    )
    trainer.run()
    assert calls[0] == ("before", 0)
    assert calls[1:4] == [("writer", 1), ("reader", 1), ("writer", 2)]
    assert ("every2", 2) in calls and ("every2", 4) in calls
    assert ("every2", 1) not in calls
    assert calls.index(("every2", 2)) < calls.index(("reader", 2))


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
        float(s.target["_snapshot_elapsed_time"])
    )


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


def test_request_stop_ends_after_the_current_iteration(tmp_path):
    trainer = mock_trainer(stop=(100, "iteration"), out=str(tmp_path))
    seen = []

    def stopper(t):
        if t.updater.iteration == 3:
            t.request_stop()

    trainer.extend(stopper, priority=training.PRIORITY_WRITER)
    trainer.extend(lambda t: seen.append(t.updater.iteration), name="reader")
    assert not trainer.stop_requested
    trainer.run()
    assert trainer.stop_requested
    assert trainer.updater.iteration == 3 and seen == [1, 2, 3]
    assert trainer.updater.finalized


def test_request_stop_from_another_thread(tmp_path):
    trainer = mock_trainer(stop=None, out=str(tmp_path))
    started = threading.Event()
    trainer.extend(lambda t: started.set(), name="flag")
    stopper = threading.Thread(
        target=lambda: started.wait(10) and trainer.request_stop()
    )
    stopper.start()
    trainer.run()
    stopper.join()
    assert trainer.updater.iteration >= 1 and trainer.stop_requested


def test_state_restoring_extensions_are_initialized_first(tmp_path):
    order = []

    class Ext(training.Extension):
        def __init__(self, tag, restores_state=False, priority=100):
            self.tag = tag
            self.restores_state = restores_state
            self.priority = priority

        def initialize(self, trainer):
            order.append(self.tag)

        def __call__(self, trainer):
            pass

    trainer = mock_trainer(stop=(1, "iteration"), out=str(tmp_path))
    trainer.extend(Ext("writer", priority=300))
    trainer.extend(Ext("loader", restores_state=True, priority=-100))
    trainer.extend(Ext("reader"))
    trainer.run()
    assert order == ["loader", "writer", "reader"]


def test_initialize_is_skipped_for_a_finished_trigger(tmp_path):
    inits = []

    @training.make_extension(initializer=lambda t: inits.append(1))
    def ext(trainer):
        pass

    done = triggers.OnceTrigger()
    done(None)
    trainer = mock_trainer(stop=(1, "iteration"), out=str(tmp_path))
    trainer.extend(ext, trigger=done)
    trainer.run()
    assert inits == []


def test_extensions_given_to_the_constructor_and_repr(tmp_path):
    calls = []

    def ext(trainer):
        calls.append(trainer.updater.iteration)

    updater = mock_trainer().updater
    trainer = training.Trainer(
        updater, (2, "iteration"), out=tmp_path / "o", extensions=[ext]
    )
    assert trainer.out == str(tmp_path / "o")
    assert "extensions=['ext']" in repr(trainer)
    trainer.run()
    assert calls == [1, 2]


def test_a_failing_error_handler_does_not_stop_the_cleanup(tmp_path, capsys):
    trainer = mock_trainer(stop=(5, "iteration"), out=str(tmp_path))
    finalized = []

    class Bad(training.Extension):
        def __call__(self, trainer):
            raise ValueError("boom")

        def on_error(self, trainer, exc, tb):
            raise RuntimeError("handler broke")

        def finalize(self):
            finalized.append(True)

    trainer.extend(Bad())
    with pytest.raises(ValueError, match="boom"):
        trainer.run(show_loop_exception_msg=False)
    assert finalized == [True] and trainer.updater.finalized
    err = capsys.readouterr().err
    assert "handler broke" in err and "Exception in main training loop" not in err


def test_elapsed_time_is_frozen_after_run_and_carried_over(tmp_path):
    trainer = mock_trainer(stop=(2, "iteration"), out=str(tmp_path))
    trainer.run()
    done = trainer.elapsed_time
    assert trainer.elapsed_time == done
    s = DictionarySerializer()
    trainer.serialize(s)
    resumed = mock_trainer(stop=(3, "iteration"), out=str(tmp_path))
    resumed.serialize(NpzDeserializer({k: np.asarray(v) for k, v in s.target.items()}))
    resumed.run()
    assert resumed.elapsed_time >= done


def test_extension_without_a_name_is_rejected(tmp_path):
    class Nameless:
        def __call__(self, trainer):
            pass

    trainer = mock_trainer(out=str(tmp_path))
    with pytest.raises(TypeError, match="name"):
        trainer.extend(Nameless())
    trainer.extend(Nameless(), name="given")
    assert isinstance(trainer.get_extension("given"), Nameless)


def test_snapshot_of_a_trainer_marked_done_without_running(tmp_path):
    # Chainer-style tests set `trainer._done = True` to snapshot a trainer
    # that never ran; only the restored elapsed time is known then.
    trainer = mock_trainer(out=str(tmp_path))
    trainer._done = True
    assert trainer.elapsed_time == 0.0
    d = {}
    trainer.serialize(DictionarySerializer(d))
    assert float(d["_snapshot_elapsed_time"]) == 0.0
