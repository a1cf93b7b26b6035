"""Iterators over datasets: serial, multithreaded and multiprocess.

Example:
    >>> from kusari import iterators
    >>> it = iterators.SerialIterator([1, 2, 3], 2, shuffle=False)
    >>> next(it), next(it)
    ([1, 2], [3, 1])
"""

from kusari.iterators.dali_iterator import DaliIterator
from kusari.iterators.multiprocess_iterator import MultiprocessIterator
from kusari.iterators.multithread_iterator import MultithreadIterator
from kusari.iterators.order_samplers import OrderSampler, ShuffleOrderSampler
from kusari.iterators.serial_iterator import SerialIterator

__all__ = [
    "DaliIterator",
    "MultiprocessIterator",
    "MultithreadIterator",
    "OrderSampler",
    "SerialIterator",
    "ShuffleOrderSampler",
]
