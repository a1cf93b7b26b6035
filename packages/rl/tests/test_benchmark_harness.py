"""The benchmark harness (packages/rl/benchmarks) counts, times and tabulates."""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def harness():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import _harness

        yield _harness
    finally:
        sys.path.remove(str(BENCHMARKS))


class ScoreEnv(gym.Env):
    """One-step episodes whose return is the action taken."""

    observation_space = gym.spaces.Box(-1, 1, (1,), np.float32)
    action_space = gym.spaces.Box(-1000, 1000, (1,), np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(1, np.float32), {}

    def step(self, action):
        return np.zeros(1, np.float32), float(action[0]), True, False, {}


def _trainer(harness, scores):
    class Scripted(harness.Trainer):
        """Its greedy score follows ``scores``, one per evaluation."""

        def __init__(self):
            self.trained = 0
            self.closed = False

        def train(self, n_steps):
            self.trained += n_steps

        def greedy_action(self, obs):
            return np.array([scores[self.trained // 100 - 1]], np.float32)

        def close(self):
            self.closed = True

    return Scripted()


def test_solved_at_first_eval_over_the_bar_and_stays_solved(harness):
    task = harness.Task("Score-v0", 10.0, 1000, 100, 2, after_solve=2)
    trainer = _trainer(harness, [0, 5, 12, 15, 11, 0, 0])
    r = harness.run(
        "fw", "X", 0, task, lambda seed: trainer, ScoreEnv, log=lambda s: None
    )
    assert r.solved_at == 300 and r.stays_solved is True
    assert [s for _, s in r.evals] == [0, 5, 12, 15, 11]  # stops after 2 more
    assert r.steps == 500 and trainer.closed and r.steps_per_second > 0


def test_falling_back_and_unsolved_runs_are_reported(harness):
    task = harness.Task("Score-v0", 10.0, 400, 100, 1, after_solve=2)
    fell = harness.run(
        "fw",
        "X",
        0,
        task,
        lambda s: _trainer(harness, [12, 3, 20, 0]),
        ScoreEnv,
        log=lambda s: None,
    )
    assert fell.solved_at == 100 and fell.stays_solved is False
    never = harness.run(
        "fw",
        "X",
        1,
        task,
        lambda s: _trainer(harness, [1, 2, 3, 4]),
        ScoreEnv,
        log=lambda s: None,
    )
    assert never.solved_at is None and never.steps == 400
    text = harness.table([fell, never], {"X": task})
    assert "0.1k (fell back), >0.4k" in text and "unsolved" in text


def test_missing_framework_is_a_table_cell(harness):
    task = harness.Task("Score-v0", 10.0, 100, 100, 1)

    def missing(seed):
        raise ImportError("no SB3", name="stable_baselines3")

    r = harness.run("SB3", "X", 0, task, missing, ScoreEnv, log=lambda s: None)
    assert "not installed (stable_baselines3)" in harness.table([r], {"X": task})
