"""A Trainer over a fake updater, for testing extensions and triggers."""

from __future__ import annotations

from typing import Any

from kusari import training


class _MockUpdater:
    """Counts iterations and epochs like ``StandardUpdater`` with no model."""

    def __init__(self, iter_per_epoch: int) -> None:
        if iter_per_epoch <= 0:
            raise ValueError(f"iter_per_epoch must be positive, got {iter_per_epoch}")
        self.iter_per_epoch = iter_per_epoch
        self.iteration = 0
        self.update_count = 0

    @property
    def epoch(self) -> int:
        return self.iteration // self.iter_per_epoch

    @property
    def epoch_detail(self) -> float:
        return self.iteration / self.iter_per_epoch

    @property
    def previous_epoch_detail(self) -> float | None:
        if self.iteration == 0:
            return None
        return (self.iteration - 1) / self.iter_per_epoch

    @property
    def is_new_epoch(self) -> bool:
        return self.iteration > 0 and self.iteration % self.iter_per_epoch == 0

    def update(self) -> None:
        self.iteration += 1
        self.update_count += 1

    def connect_trainer(self, trainer: Any) -> None:
        pass

    def finalize(self) -> None:
        pass

    def get_optimizer(self, name: str) -> Any:
        raise KeyError(f"the mock updater has no optimizer {name!r}")

    def get_all_optimizers(self) -> dict[str, Any]:
        return {}

    def serialize(self, serializer: Any) -> None:
        self.iteration = int(serializer("iteration", self.iteration))


def get_trainer_with_mock_updater(
    stop_trigger: Any = (10, "iteration"),
    iter_per_epoch: int = 10,
    extensions: list[Any] | None = None,
) -> training.Trainer:
    """A :class:`~kusari.training.Trainer` whose updater only counts.

    Example:
        >>> from kusari import testing
        >>> trainer = testing.get_trainer_with_mock_updater((3, 'iteration'))
        >>> trainer.run()
        >>> trainer.updater.iteration
        3
    """
    trainer = training.Trainer(
        _MockUpdater(iter_per_epoch), stop_trigger, extensions=extensions or []
    )
    return trainer
