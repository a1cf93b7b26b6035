"""Fixtures for the distribution tests: a fixed global RNG per test."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seed() -> Iterator[None]:
    state = np.random.get_state()
    np.random.seed(0)
    yield
    np.random.set_state(state)
