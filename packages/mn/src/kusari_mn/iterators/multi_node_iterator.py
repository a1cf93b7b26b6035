"""An iterator read on one rank whose batches every rank receives."""

from __future__ import annotations

from typing import Any

_STATE = ("epoch", "is_new_epoch", "epoch_detail", "previous_epoch_detail")


class _MultiNodeIteratorMaster:
    def __init__(
        self, actual_iterator: Any, communicator: Any, rank_master: int
    ) -> None:
        self.actual_iterator = actual_iterator
        self.communicator = communicator
        self.rank_master = rank_master

    def __iter__(self) -> _MultiNodeIteratorMaster:
        return self

    def __next__(self) -> Any:
        try:
            batch = next(self.actual_iterator)
            stop = False
        except StopIteration:
            batch, stop = None, True
        state = {k: getattr(self.actual_iterator, k, None) for k in _STATE}
        self.communicator.bcast_obj((stop, batch, state), root=self.rank_master)
        if stop:
            raise StopIteration
        return batch

    next = __next__

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_iterator, name)

    def serialize(self, serializer: Any) -> None:
        self.actual_iterator.serialize(serializer)

    def reset(self) -> None:
        self.actual_iterator.reset()

    def finalize(self) -> None:
        self.actual_iterator.finalize()


class _MultiNodeIteratorSlave:
    epoch = 0
    is_new_epoch = False
    epoch_detail = 0.0
    previous_epoch_detail: float | None = None

    def __init__(self, communicator: Any, rank_master: int) -> None:
        self.communicator = communicator
        self.rank_master = rank_master

    def __iter__(self) -> _MultiNodeIteratorSlave:
        return self

    def __next__(self) -> Any:
        stop, batch, state = self.communicator.bcast_obj(None, root=self.rank_master)
        for key, value in state.items():
            setattr(self, key, value)
        if stop:
            raise StopIteration
        return batch

    next = __next__

    def serialize(self, serializer: Any) -> None:
        # The master's iterator holds the real position; keep the copies
        # here consistent so that triggers read the same epoch everywhere.
        for key in _STATE:
            value = getattr(self, key)
            if value is not None:
                setattr(self, key, serializer(key, value))

    def reset(self) -> None:
        """Nothing to reset: the master's iterator drives the batches."""

    def finalize(self) -> None:
        """Nothing to release."""


def create_multi_node_iterator(
    actual_iterator: Any, communicator: Any, rank_master: int = 0
) -> Any:
    """Iterate ``actual_iterator`` on ``rank_master`` and broadcast each batch.

    The other ranks pass any value (e.g. None) as ``actual_iterator``, and
    get the master's batches and its ``epoch``/``is_new_epoch``/
    ``epoch_detail``, so their updaters and triggers stay in step. Useful in
    model parallelism, where one rank reads data that several ranks need.

    Args:
        actual_iterator: The iterator on ``rank_master``.
        communicator: The communicator.
        rank_master: The rank that reads the data.
    """
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)
