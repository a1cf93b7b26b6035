"""kusari-rl vs Stable-Baselines3 on CartPole-v1: DQN, PPO and A2C.

Steps until the first evaluation (10 greedy episodes every 2000 steps) with a
mean return of at least 475, and training env-steps per second, one thread.

    python packages/rl/benchmarks/bench_cartpole.py                 # quick: seed 0
    python packages/rl/benchmarks/bench_cartpole.py --seeds 0 1 2   # the full table
    python packages/rl/benchmarks/bench_cartpole.py --algos PPO --frameworks kusari-rl
"""

from __future__ import annotations

import _harness  # sets the thread counts before NumPy loads
import _kusari
import _sb3

TASKS = {
    "DQN": _harness.Task("CartPole-v1", 475.0, 50_000, 2000, 10),
    "PPO": _harness.Task("CartPole-v1", 475.0, 100_000, 2000, 10),
    "A2C": _harness.Task("CartPole-v1", 475.0, 100_000, 2000, 10),
}

NOTES = """\
kusari-rl: DoubleDQN (100-100 ReLU, Adam 1e-3 with eps 1e-2, minibatch 32,
rewards scaled by 0.01, epsilon 1 -> 0.05 over 10000 steps, target sync every
100 steps); PPO and A2C on 8 envs with
64-64 tanh policy and value networks (PPO: 32 steps per env per update, 10
epochs of minibatch 64, Adam 1e-3, gamma 0.98, lambda 0.8; A2C: 5 steps,
RMSprop 7e-4). SB3: rl-baselines3-zoo's CartPole-v1 settings.
Steps/s count training steps over training time (evaluations excluded)."""


if __name__ == "__main__":
    _harness.main(
        "CartPole-v1 (bar: mean return >= 475)",
        TASKS,
        _kusari.FACTORIES,
        lambda env_id: _kusari.make_env(env_id, seed=12345),
        _sb3.run,
        notes=NOTES,
    )
