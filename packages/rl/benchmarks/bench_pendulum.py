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
Both sides use rl-baselines3-zoo's Pendulum-v1 settings and SB3's network
sizes, actions rescaled to [-1, 1]. SAC: 256-256 ReLU networks, Adam 1e-3,
minibatch 256, tau 0.005 (kusari-rl: 0.02), learned temperature (target
entropy -1), gamma 0.99, PyTorch's default layer initialisation (uniform
+-1/sqrt(fan_in), as SB3's networks have); random actions for the first 256
steps (SB3: 100, sampling minibatches with replacement). TD3: 400-300
networks, Adam 1e-3, minibatch 256, gamma 0.98, N(0, 0.1) exploration noise;
kusari-rl starts learning after 1000 random steps, SB3 after rl-zoo's 10000.
Steps/s count training steps over training time (evaluations excluded)."""


if __name__ == "__main__":
    _harness.main(
        "Pendulum-v1 (bar: mean return >= -200)",
        TASKS,
        _kusari.FACTORIES,
        lambda env_id: _kusari.make_env(env_id, seed=12345),
        _sb3.run,
        notes=NOTES + "\n" + _kusari.settings_note(list(TASKS)),
    )
