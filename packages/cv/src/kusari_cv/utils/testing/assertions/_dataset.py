"""Pick the examples a dataset assertion looks at."""

from __future__ import annotations

from typing import Any

import numpy as np


def examples(dataset: Any, n_example: int | None, n_min: int) -> list[tuple[Any, ...]]:
    """``n_example`` random examples (all when None), each checked to be a
    tuple of at least ``n_min`` elements."""
    if n_example is None:
        indices = range(len(dataset))
    else:
        indices = np.random.randint(0, len(dataset), size=n_example).tolist()
    out = []
    for i in indices:
        sample = dataset[i]
        assert isinstance(sample, tuple) and len(sample) >= n_min, (
            f"each example must be a tuple of at least {n_min} elements, "
            f"example {i} is {type(sample).__name__}"
        )
        out.append(sample)
    return out
