"""Order samplers: decide the order in which an iterator visits examples."""

from __future__ import annotations

import numpy


class OrderSampler:
    """Base class of order samplers.

    An order sampler is called at the start of every epoch as
    ``sampler(current_order, current_position)`` and returns the new order,
    an integer array of the same length.

    Example:
        >>> import numpy as np
        >>> class Reverse(OrderSampler):
        ...     def __call__(self, current_order, current_position):
        ...         return np.arange(len(current_order))[::-1]
        >>> Reverse()(np.arange(3), 0)
        array([2, 1, 0])
    """

    def __call__(
        self, current_order: numpy.ndarray, current_position: int
    ) -> numpy.ndarray:
        raise NotImplementedError


class ShuffleOrderSampler(OrderSampler):
    """Order sampler returning a fresh random permutation every epoch.

    Args:
        random_state: A :class:`numpy.random.RandomState`; NumPy's global
            one when ``None`` (so ``numpy.random.seed`` controls it).

    Example:
        >>> import numpy as np
        >>> s = ShuffleOrderSampler(np.random.RandomState(0))
        >>> sorted(s(np.arange(4), 0).tolist())
        [0, 1, 2, 3]
    """

    def __init__(self, random_state: numpy.random.RandomState | None = None) -> None:
        if random_state is None:
            # The global RandomState behind numpy.random.* functions.
            random_state = numpy.random.mtrand._rand
        self._random = random_state

    def __repr__(self) -> str:
        return "ShuffleOrderSampler()"

    def __call__(
        self, current_order: numpy.ndarray, current_position: int
    ) -> numpy.ndarray:
        return self._random.permutation(len(current_order))
