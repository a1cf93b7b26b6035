"""get_trainer_with_mock_updater: a Trainer over a ``mock.Mock`` updater."""

from __future__ import annotations

from unittest import mock

import pytest

from kusari import testing, training


def test_updater_counts_like_chainers_mock():
    trainer = testing.get_trainer_with_mock_updater((2, "epoch"), iter_per_epoch=3)
    updater = trainer.updater
    assert isinstance(updater, mock.Mock)
    assert (updater.iteration, updater.epoch, updater.epoch_detail) == (0, 0, 0)
    assert updater.is_new_epoch and updater.previous_epoch_detail is None
    seen = []
    trainer.extend(
        lambda t: seen.append(
            (t.updater.iteration, t.updater.epoch, t.updater.is_new_epoch)
        ),
        trigger=(1, "iteration"),
    )
    trainer.run()
    assert updater.update_core.call_count == 6
    assert seen[:4] == [(1, 0, False), (2, 0, False), (3, 1, True), (4, 1, False)]
    assert updater.previous_epoch_detail == 5 / 3
    assert updater.get_all_optimizers() == {}


def test_optimizer_is_whatever_the_test_sets():
    # Extensions that shift a hyperparameter ask the updater for 'main'.
    trainer = testing.get_trainer_with_mock_updater((2, "iteration"))
    optimizer = mock.MagicMock(lr=1.0)
    trainer.updater.get_optimizer.return_value = optimizer
    trainer.extend(
        training.extensions.ExponentialShift("lr", 0.5), trigger=(1, "iteration")
    )
    trainer.run()
    assert optimizer.lr == 0.25
    trainer.updater.get_optimizer.assert_called_with("main")


def test_stop_trigger_object_and_extensions_argument():
    calls = []
    trigger = training.get_trigger((4, "iteration"))
    trainer = testing.get_trainer_with_mock_updater(
        trigger, extensions=[lambda t: calls.append(t.updater.iteration)]
    )
    trainer.run()
    assert calls == [1, 2, 3, 4]


@pytest.mark.parametrize(
    "bad,exc",
    [(0, ValueError), (-1.5, ValueError), ("2", TypeError), (True, TypeError)],
)
def test_iter_per_epoch_is_checked(bad, exc):
    with pytest.raises(exc, match="get_trainer_with_mock_updater: iter_per_epoch"):
        testing.get_trainer_with_mock_updater(iter_per_epoch=bad)


@pytest.mark.parametrize("per_epoch", [2.5, 0.5])
def test_fractional_epochs_end_between_iterations(per_epoch):
    # Chainer's trigger tests use 2.5 ("unaligned") and 0.5 ("tiny") epochs.
    trainer = testing.get_trainer_with_mock_updater(None, iter_per_epoch=per_epoch)
    updater = trainer.updater
    new_epoch = []
    for _ in range(5):
        updater.update()
        new_epoch.append(updater.is_new_epoch)
    assert updater.epoch_detail == pytest.approx(5 / per_epoch)
    assert updater.previous_epoch_detail == pytest.approx(4 / per_epoch)
    assert updater.epoch == 5 // per_epoch
    expected = [(i - 1) // per_epoch != i // per_epoch for i in range(1, 6)]
    assert new_epoch == expected
