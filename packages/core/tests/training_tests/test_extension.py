"""Extension and make_extension: the defaults the trainer reads."""

from __future__ import annotations

import pytest
from _training_helpers import mock_trainer

from kusari import training
from kusari.training import extension as extension_module


def test_make_extension_defaults_are_used(tmp_path):
    trainer = mock_trainer(stop=(4, "iteration"), out=str(tmp_path))
    seen = []
    inits = []

    @training.make_extension(
        trigger=(2, "iteration"), priority=250, initializer=lambda t: inits.append(1)
    )
    def ext(trainer):
        seen.append(trainer.updater.iteration)

    trainer.extend(ext)
    trainer.run()
    assert seen == [2, 4] and inits == [1]
    assert ext.default_name == "ext" and ext.priority == 250


def test_priorities_order_writers_editors_readers():
    assert (
        training.PRIORITY_WRITER > training.PRIORITY_EDITOR > training.PRIORITY_READER
    )


def test_extension_defaults():
    class MyExt(extension_module.Extension):
        pass

    ext = MyExt()
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
    assert ext.name is None and ext.default_name == "MyExt"
    assert ext.restores_state is False
    assert ext.initialize(None) is None and ext.finalize() is None
    assert ext.on_error(None, ValueError(), None) is None
    assert ext.serialize(None) is None
    with pytest.raises(NotImplementedError):
        ext(None)


def test_make_extension_without_arguments_uses_the_extension_defaults():
    @training.make_extension()
    def plain(trainer):
        pass

    assert plain.trigger == (1, "iteration")
    assert plain.priority == training.PRIORITY_READER
    assert plain.default_name == "plain"
    assert plain.initialize is None and plain.finalize is None
    assert plain.on_error is None


def test_make_extension_hooks_are_called_by_the_trainer(tmp_path):
    log = []

    @training.make_extension(
        default_name="named",
        finalizer=lambda: log.append("finalize"),
        on_error=lambda trainer, exc, tb: log.append(("error", str(exc))),
    )
    def failing(trainer):
        raise ValueError("x")

    trainer = mock_trainer(stop=(3, "iteration"), out=str(tmp_path))
    trainer.extend(failing)
    assert trainer.get_extension("named") is failing
    with pytest.raises(ValueError):
        trainer.run(show_loop_exception_msg=False)
    assert log == [("error", "x"), "finalize"]


def test_make_extension_rejects_removed_and_unknown_arguments():
    with pytest.raises(ValueError, match="invoke_before_training has been removed"):
        training.make_extension(invoke_before_training=False)
    with pytest.raises(TypeError, match="make_extension.*foo"):
        training.make_extension(foo=1)
