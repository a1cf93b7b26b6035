"""Iterators that shuffle in the same order on every rank."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.iterators import ShuffleOrderSampler


def create_synchronized_iterator(actual_iterator: Any, communicator: Any) -> Any:
    """Make ``actual_iterator`` shuffle identically on every rank.

    Rank 0 draws a seed and broadcasts it; every rank's iterator gets a
    :class:`~kusari.iterators.ShuffleOrderSampler` with that seed and is
    reset. Each rank must hold the same dataset.

    Args:
        actual_iterator: An iterator with an ``order_sampler`` attribute
            (SerialIterator, MultiprocessIterator, ...).
        communicator: The communicator.

    Returns:
        ``actual_iterator`` itself, now synchronized.
    """
    if not hasattr(actual_iterator, "order_sampler"):
        raise TypeError(
            "create_synchronized_iterator: the iterator has no order_sampler "
            f"attribute ({type(actual_iterator).__name__})"
        )
    seed = None
    if communicator.rank == 0:
        seed = int(numpy.random.randint(0, 2**31 - 1))
    seed = communicator.bcast_obj(seed, root=0)
    actual_iterator.order_sampler = ShuffleOrderSampler(numpy.random.RandomState(seed))
    actual_iterator.reset()
    return actual_iterator
