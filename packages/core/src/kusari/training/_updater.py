"""Updater: the interface of the objects that run one training step."""

from __future__ import annotations

from typing import Any


class Updater:
    """Base class of updaters.

    An updater owns iterators and optimizers; :meth:`update` runs one
    iteration and advances ``iteration``.
    """

    def connect_trainer(self, trainer: Any) -> None:
        """Called by the trainer it is given to."""

    def finalize(self) -> None:
        """Release resources after training."""

    def get_optimizer(self, name: str) -> Any:
        raise NotImplementedError

    def get_all_optimizers(self) -> dict[str, Any]:
        raise NotImplementedError

    def update(self) -> None:
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        raise NotImplementedError
