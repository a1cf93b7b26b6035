"""A Trainer over a mock updater, for testing extensions and triggers."""

from __future__ import annotations

from typing import Any
from unittest import mock

from kusari import training


def get_trainer_with_mock_updater(
    stop_trigger: Any = (10, "iteration"),
    iter_per_epoch: float = 10,
    extensions: list[Any] | None = None,
) -> training.Trainer:
    """A :class:`~kusari.training.Trainer` whose updater is a ``mock.Mock``.

    As in Chainer, the updater is a :class:`unittest.mock.Mock` whose
    ``update()`` calls ``update_core()`` and advances ``iteration``,
    ``epoch``, ``epoch_detail``, ``previous_epoch_detail`` and
    ``is_new_epoch``; every other attribute is a mock, so a test can set
    ``trainer.updater.get_optimizer.return_value`` or count
    ``trainer.updater.update_core.call_count``. ``get_all_optimizers()``
    returns ``{}``.

    Args:
        stop_trigger: Stop trigger of the trainer.
        iter_per_epoch: Iterations in one epoch: a positive int or float (a
            fractional value such as 2.5 makes epochs end between
            iterations, as in Chainer's own trigger tests).
        extensions: Extensions to register.

    Returns:
        The trainer.

    Example:
        >>> from kusari import testing
        >>> trainer = testing.get_trainer_with_mock_updater((3, 'iteration'))
        >>> trainer.run()
        >>> trainer.updater.iteration, trainer.updater.update_core.call_count
        (3, 3)
    """
    if isinstance(iter_per_epoch, bool) or not isinstance(iter_per_epoch, (int, float)):
        raise TypeError(
            "get_trainer_with_mock_updater: iter_per_epoch must be a number, "
            f"got {type(iter_per_epoch).__name__}"
        )
    if iter_per_epoch <= 0:
        raise ValueError(
            "get_trainer_with_mock_updater: iter_per_epoch must be positive, "
            f"got {iter_per_epoch}"
        )
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update() -> None:
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = (updater.iteration - 1) // iter_per_epoch != (
            updater.epoch
        )
        updater.previous_epoch_detail = (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger, extensions=extensions or [])
