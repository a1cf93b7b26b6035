"""Datasets of empty examples, for ranks of a model-parallel job without data."""

from __future__ import annotations

from typing import Any


def create_empty_dataset(dataset: Any) -> list[tuple[()]]:
    """A dataset of ``len(dataset)`` empty tuples.

    Ranks that receive their inputs from another rank iterate over it to
    keep the same number of iterations as the rank that reads the data.

    Example:
        >>> create_empty_dataset([1, 2, 3])
        [(), (), ()]
    """
    return [()] * len(dataset)
