"""Epoch bookkeeping shared by all iterators.

The position in the dataset is an immutable :class:`IteratorState`; one step
(:func:`advance`) returns the next state and the example indices of the
batch. Iterators that prefetch compute states ahead of time and publish a
state only when its batch is handed out, so ``serialize`` always records the
position of the last batch the caller actually received.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sized
from typing import Any

import numpy

from kusari.dataset.iterator import Iterator
from kusari.iterators.order_samplers import ShuffleOrderSampler

Sampler = Callable[[numpy.ndarray, int], numpy.ndarray]


@dataclasses.dataclass(frozen=True)
class IteratorState:
    current_position: int
    epoch: int
    is_new_epoch: bool
    order: numpy.ndarray | None


def advance(
    state: IteratorState,
    batch_size: int,
    repeat: bool,
    sampler: Sampler | None,
    dataset_len: int,
) -> tuple[IteratorState, list[int] | None]:
    """Return the state after one batch and the batch's indices.

    The indices are ``None`` once a non-repeating iterator has finished.
    """
    if not repeat and state.epoch > 0:
        return state, None
    order = state.order
    n = dataset_len if order is None else len(order)
    i = state.current_position
    i_end = i + batch_size
    if order is None:
        indices = list(range(i, min(i_end, n)))
    else:
        indices = [int(k) for k in order[i:i_end]]
    if i_end < n:
        return IteratorState(i_end, state.epoch, False, order), indices
    position = 0
    if repeat:
        rest = i_end - n
        if order is not None:
            assert sampler is not None
            new_order = numpy.asarray(sampler(order, i))
            if len(new_order) != len(order):
                raise ValueError(
                    "The size of order does not match the size of the previous "
                    f"order (order_sampler returned {len(new_order)} indices, "
                    f"expected {len(order)})"
                )
            order = new_order
        if rest > 0:
            if order is None:
                indices.extend(range(min(rest, n)))
            else:
                indices.extend(int(k) for k in order[:rest])
        position = rest
    return IteratorState(position, state.epoch + 1, True, order), indices


def draws_order(state: IteratorState, batch_size: int, repeat: bool) -> bool:
    """Tell whether :func:`advance` from ``state`` calls the order sampler."""
    order = state.order
    return (
        repeat
        and order is not None
        and state.current_position + batch_size >= len(order)
    )


class StatefulIterator(Iterator):
    """Iterator with Chainer's epoch attributes, reset and serialization."""

    dataset: Any
    batch_size: int
    order_sampler: Sampler | None
    _repeat: bool
    _state: IteratorState
    _previous_epoch_detail: float = -1.0

    def _setup(
        self,
        dataset: Sized,
        batch_size: int,
        repeat: bool,
        shuffle: bool | None,
        order_sampler: Sampler | None,
    ) -> None:
        name = type(self).__name__
        if not isinstance(batch_size, (int, numpy.integer)) or batch_size <= 0:
            raise ValueError(
                f"{name}: batch_size must be a positive int, got {batch_size!r}"
            )
        if not hasattr(dataset, "__len__") or not hasattr(dataset, "__getitem__"):
            raise TypeError(
                f"{name}: the dataset must support len() and indexing, got "
                f"{type(dataset).__name__}"
            )
        if shuffle is not None and order_sampler is not None:
            raise ValueError(
                "`shuffle` is not `None` and a custom `order_sampler` is set. "
                "Please set `shuffle` to `None` to use the custom order sampler "
                f"({name})"
            )
        if shuffle is None and order_sampler is None:
            order_sampler = ShuffleOrderSampler()
        elif shuffle:
            order_sampler = ShuffleOrderSampler()
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self._repeat = repeat
        self.order_sampler = order_sampler

    def reset(self) -> None:
        """Go back to the start of epoch 0 (drawing a new order)."""
        order = None
        if self.order_sampler is not None:
            # The order's length is the epoch's length, which need not be the
            # dataset's (a sampler may repeat or leave out examples).
            order = numpy.asarray(
                self.order_sampler(numpy.arange(len(self.dataset)), 0)
            )
        self._state = IteratorState(0, 0, False, order)
        self._previous_epoch_detail = -1.0

    def _advance(self, state: IteratorState) -> tuple[IteratorState, list[int] | None]:
        return advance(
            state, self.batch_size, self._repeat, self.order_sampler, len(self.dataset)
        )

    def _draws_order(self, state: IteratorState) -> bool:
        return draws_order(state, self.batch_size, self._repeat)

    @property
    def repeat(self) -> bool:
        """Whether the iterator restarts after each epoch."""
        return self._repeat

    @property
    def _epoch_size(self) -> int:
        order = self._state.order
        return len(self.dataset) if order is None else len(order)

    @property
    def current_position(self) -> int:
        """Index (within the epoch's order) of the next example."""
        return self._state.current_position

    @current_position.setter
    def current_position(self, value: int) -> None:
        self._state = dataclasses.replace(self._state, current_position=int(value))

    @property
    def epoch(self) -> int:
        """Number of completed epochs."""
        return self._state.epoch

    @epoch.setter
    def epoch(self, value: int) -> None:
        self._state = dataclasses.replace(self._state, epoch=int(value))

    @property
    def is_new_epoch(self) -> bool:
        """True right after the batch that completed an epoch."""
        return self._state.is_new_epoch

    @is_new_epoch.setter
    def is_new_epoch(self, value: bool) -> None:
        self._state = dataclasses.replace(self._state, is_new_epoch=bool(value))

    @property
    def epoch_detail(self) -> float:
        """Epochs done, as a float (e.g. 1.5 halfway through epoch 2)."""
        return self.epoch + self.current_position / max(self._epoch_size, 1)

    @property
    def previous_epoch_detail(self) -> float | None:
        """``epoch_detail`` before the last batch, or None before the first."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def serialize(self, serializer: Any) -> None:
        """Save or restore position, epoch, order and previous_epoch_detail."""
        s = self._state
        position = serializer("current_position", s.current_position)
        epoch = serializer("epoch", s.epoch)
        is_new_epoch = serializer("is_new_epoch", s.is_new_epoch)
        order = s.order
        if order is not None:
            # Copy so that loading never mutates an order array that a
            # prefetched state may still share.
            order = order.copy()
            try:
                order = serializer("order", order)
            except KeyError:  # files written by very old Chainer versions
                order = serializer("_order", order)
        self._state = IteratorState(
            int(position), int(epoch), bool(is_new_epoch), order
        )
        try:
            self._previous_epoch_detail = float(
                serializer("previous_epoch_detail", self._previous_epoch_detail)
            )
        except KeyError:
            # Older snapshots lack it: estimate it from the current position.
            guess = self.epoch + (self.current_position - self.batch_size) / max(
                self._epoch_size, 1
            )
            self._previous_epoch_detail = (
                max(guess, 0.0) if self.epoch_detail > 0 else -1.0
            )
        self._on_state_loaded()

    def _on_state_loaded(self) -> None:
        """Hook for iterators that prefetch: drop work done for the old state."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(len(dataset)={len(self.dataset)}, "
            f"batch_size={self.batch_size}, repeat={self._repeat}, "
            f"epoch_detail={self.epoch_detail:.3f})"
        )
