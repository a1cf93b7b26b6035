"""Seeding of every random number generator the agents use."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["get_random_state", "sample_n_k", "set_random_seed", "set_random_state"]


def set_random_seed(seed: int, gpus: Sequence[int] = ()) -> None:
    """Seed Python's ``random``, NumPy's global RNG and CuPy's (for ``gpus``).

    Args:
        seed: Seed, an integer in ``[0, 2**32)``.
        gpus: GPU ids whose CuPy generator to seed as well (negative ids are
            ignored, as ChainerRL's ``--gpu -1`` means CPU).
    """
    if not 0 <= int(seed) < 2**32:
        raise ValueError(f"set_random_seed: seed must be in [0, 2**32), got {seed}")
    random.seed(seed)
    np.random.seed(seed)
    gpus = [g for g in gpus if g is not None and g >= 0]
    if gpus:
        import cupy  # only needed when a GPU is asked for

        for gpu in gpus:
            with cupy.cuda.Device(gpu):
                cupy.random.seed(seed)


def get_random_state() -> dict[str, Any]:
    """Snapshot of Python's and NumPy's global RNG states (for exact resume)."""
    return {"python": random.getstate(), "numpy": np.random.get_state()}


def set_random_state(state: dict[str, Any]) -> None:
    """Restore a state taken by :func:`get_random_state`."""
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])


def sample_n_k(n: int, k: int) -> np.ndarray:
    """Sample ``k`` distinct integers from ``range(n)`` (fast for small k)."""
    if not 0 <= k <= n:
        raise ValueError(f"sample_n_k: need 0 <= k <= n, got n={n}, k={k}")
    return np.asarray(random.sample(range(n), k), dtype=np.int64)
