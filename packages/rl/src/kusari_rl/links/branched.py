"""Branched: feed one input to several links and collect their outputs."""

from __future__ import annotations

from typing import Any

import kusari

__all__ = ["Branched"]


class Branched(kusari.ChainList):
    """Link whose children all receive the same input.

    Calling it with ``(*args, **kwargs)`` calls every child with those
    arguments, in the order they were given, and returns the tuple of their
    outputs. A typical use is an actor-critic head: a policy and a value
    function sharing the input.

    Args:
        *links: Child links (at least one).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> net = Branched(L.Linear(3, 2), L.Linear(3, 1))
        >>> pi, v = net(np.zeros((4, 3), dtype=np.float32))
        >>> pi.shape, v.shape
        ((4, 2), (4, 1))
    """

    def __init__(self, *links: kusari.Link) -> None:
        if not links:
            raise ValueError("Branched: expected at least one child link, got none")
        for i, link in enumerate(links):
            if not isinstance(link, kusari.Link):
                raise TypeError(
                    f"Branched: child {i} must be a kusari.Link, got "
                    f"{type(link).__name__}"
                )
        super().__init__(*links)

    def forward(self, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        return tuple(child(*args, **kwargs) for child in self)
