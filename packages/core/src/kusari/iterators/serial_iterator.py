"""SerialIterator: minibatches fetched in the calling thread."""

from __future__ import annotations

from typing import Any

from kusari.iterators._state import Sampler, StatefulIterator


class SerialIterator(StatefulIterator):
    """Iterate over a dataset in minibatches, in the calling thread.

    Args:
        dataset: Anything with ``len()`` and integer indexing.
        batch_size: Number of examples per batch.
        repeat: Loop forever (``True``) or stop after one epoch.
        shuffle: Shuffle every epoch. ``None`` (default) means shuffle unless
            ``order_sampler`` is given.
        order_sampler: Callable ``(current_order, position) -> new_order``
            called at each epoch boundary (see :class:`ShuffleOrderSampler`).
            An epoch is one pass over the order it returns, which may be
            longer or shorter than the dataset; its length must not change.

    Example:
        >>> it = SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
        >>> [batch for batch in it]
        [[0, 1], [2, 3], [4]]
        >>> it.epoch, it.is_new_epoch
        (1, True)
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        order_sampler: Sampler | None = None,
    ) -> None:
        self._setup(dataset, batch_size, repeat, shuffle, order_sampler)
        self.reset()

    def __next__(self) -> list[Any]:
        self._previous_epoch_detail = self.epoch_detail
        state, indices = self._advance(self._state)
        if indices is None:
            raise StopIteration
        batch = [self.dataset[i] for i in indices]
        self._state = state
        return batch

    next = __next__
