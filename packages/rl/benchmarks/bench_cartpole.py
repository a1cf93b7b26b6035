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
SB3 runs rl-baselines3-zoo's CartPole-v1 settings with its network sizes.
DQN: 256-256 ReLU, Adam 2.3e-3, minibatch 64, 128 updates every 256 steps
from step 1000, target sync every 10 steps, epsilon 1 -> 0.04 over 8000
steps, gradient norm <= 10. PPO: 8 envs x 32 steps, 20 epochs of minibatch
256, gamma 0.98, lambda 0.8, no entropy bonus, learning rate 1e-3 and clip
range 0.2 decaying linearly to 0 over 100k steps, value coefficient 0.5,
gradient norm <= 0.5, 64-64 tanh policy and value networks with SB3's
orthogonal initialisation. A2C: SB3's defaults on 8 envs, no entropy bonus.
kusari-rl starts from the same settings and networks; the lines below list
where it differs (DQN: Double DQN, 3-step returns, a dueling head, gamma
0.999, learning-rate decay, standardised observations; PPO: standardised
observations; A2C: standardised observations, gamma 0.999, GAE lambda 0.9,
learning rate 1e-3 decaying linearly to 0 over 100k steps).
Steps/s count training steps over training time (evaluations excluded)."""


if __name__ == "__main__":
    _harness.main(
        "CartPole-v1 (bar: mean return >= 475)",
        TASKS,
        _kusari.FACTORIES,
        lambda env_id: _kusari.make_env(env_id, seed=12345),
        _sb3.run,
        notes=NOTES + "\n" + _kusari.settings_note(list(TASKS)),
    )
