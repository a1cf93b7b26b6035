"""Iterators for multi-process jobs."""

from kusari_mn.iterators.multi_node_iterator import create_multi_node_iterator
from kusari_mn.iterators.synchronized_iterator import create_synchronized_iterator

__all__ = ["create_multi_node_iterator", "create_synchronized_iterator"]
