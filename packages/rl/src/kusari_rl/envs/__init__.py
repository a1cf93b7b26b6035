"""Environments for tests and vector-env helpers (``chainerrl.envs``)."""

from kusari_rl.envs.abc import ABC
from kusari_rl.experiments.vector import make_vector_env

__all__ = ["ABC", "make_vector_env"]
