"""kusari-rl vs Stable-Baselines3 on Pendulum-v1: SAC and TD3.

Steps until the first evaluation (10 greedy episodes every 1000 steps) with a
mean return of at least -200, and training env-steps per second, one thread.

    python packages/rl/benchmarks/bench_pendulum.py                 # quick: seed 0
    python packages/rl/benchmarks/bench_pendulum.py --seeds 0 1 2   # the full table
    python packages/rl/benchmarks/bench_pendulum.py --algos SAC --frameworks kusari-rl
"""

from __future__ import annotations

import _harness  # sets the thread counts before NumPy loads
import _kusari
import _sb3

TASKS = {
    "SAC": _harness.Task("Pendulum-v1", -200.0, 20_000, 1000, 10),
    "TD3": _harness.Task("Pendulum-v1", -200.0, 30_000, 1000, 10),
}

NOTES = """\
kusari-rl: SAC and TD3 with 64-64 ReLU networks (enough for Pendulum, with
1/16 of the hidden-layer arithmetic of 256-256), Adam(1e-3), minibatch 256,
uniformly random actions before the first update (SAC: 256 steps, TD3:
1000), actions rescaled to [-1, 1]; SAC learns its temperature (target
entropy -1, gamma 0.99); TD3 adds N(0, 0.1) exploration noise (gamma 0.98).
SB3: rl-baselines3-zoo's Pendulum-v1 settings (SAC: lr 1e-3, 256-256, 100
random steps; TD3: 400-300 networks, 10000 random steps, gamma 0.98).
Steps/s count training steps over training time (evaluations excluded)."""


if __name__ == "__main__":
    _harness.main(
        "Pendulum-v1 (bar: mean return >= -200)",
        TASKS,
        _kusari.FACTORIES,
        lambda env_id: _kusari.make_env(env_id, seed=12345),
        _sb3.run,
        notes=NOTES,
    )
