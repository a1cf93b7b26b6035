"""Training speed of kusari-rl and Stable-Baselines3, interleaved, one thread.

The learning benchmarks time whole runs one after the other, so on a shared
machine their env-steps/s drift with the load. This script builds both
frameworks' agents with the benchmark settings, warms both up past the
start of learning, then alternates timed chunks of training (kusari-rl,
SB3, kusari-rl, ...) and reports each side's best chunk and the ratio, by
the wall clock and by the process's CPU time (on a machine shared with other
jobs the CPU-time rate is the steadier of the two: it does not count the
time the process waited for a core).

    python packages/rl/benchmarks/bench_speed.py                 # all
    python packages/rl/benchmarks/bench_speed.py --algos SAC --repeats 5
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import _harness  # sets the thread counts before NumPy loads
import _kusari
import _sb3

# (env id, warm-up steps, timed chunk) per algorithm: the warm-up passes
# both frameworks' first update; chunks are whole SB3 rollouts / updates.
PLAN = {
    "DQN": ("CartPole-v1", 1024, 1024),
    "PPO": ("CartPole-v1", 512, 2048),
    "A2C": ("CartPole-v1", 400, 2000),
    "SAC": ("Pendulum-v1", 300, 200),
    "TD3": ("Pendulum-v1", 1100, 300),
}


def _sb3_model(algo: str, env_id: str, seed: int) -> Any:
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    cls, kwargs, n_envs = _sb3._config(algo)
    if algo == "TD3":
        # rl-zoo waits 10000 random steps; the speed of updating is what is
        # measured here, so SB3 starts where kusari-rl does.
        kwargs["learning_starts"] = 1000
    env = make_vec_env(env_id, n_envs=n_envs, seed=seed)
    return cls("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **kwargs)


def _timed(fn: Callable[[], None]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of ``fn()``."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def measure(
    algo: str, repeats: int, seed: int = 0
) -> tuple[dict[str, float], dict[str, float]]:
    """Best env-steps/s of each framework over ``repeats`` alternated chunks,
    by wall-clock time and by CPU time."""
    env_id, warmup, chunk = PLAN[algo]
    trainer = _kusari.FACTORIES[algo](seed)
    rates: dict[str, list[float]] = {"kusari-rl": [], "SB3": []}
    cpu_rates: dict[str, list[float]] = {"kusari-rl": [], "SB3": []}
    model = None
    try:
        model = _sb3_model(algo, env_id, seed)
    except ImportError as e:
        _harness._print(f"  SB3 not installed ({e.name}); timing kusari-rl alone")
    try:
        trainer.train(warmup)
        if model is not None:
            model.learn(warmup)
        for _ in range(repeats):
            wall, cpu = _timed(lambda: trainer.train(chunk))
            rates["kusari-rl"].append(chunk / wall)
            cpu_rates["kusari-rl"].append(chunk / cpu)
            if model is not None:
                wall, cpu = _timed(
                    lambda: model.learn(chunk, reset_num_timesteps=False)
                )
                rates["SB3"].append(chunk / wall)
                cpu_rates["SB3"].append(chunk / cpu)
    finally:
        trainer.close()
        if model is not None:
            model.get_env().close()
    for label, per in (("wall", rates), ("cpu", cpu_rates)):
        _harness._print(
            f"  {algo} ({label}): "
            + ", ".join(
                f"{k} {', '.join(f'{r:.0f}' for r in v)}" for k, v in per.items()
            )
        )
    best = {k: max(v) for k, v in rates.items() if v}
    best_cpu = {k: max(v) for k, v in cpu_rates.items() if v}
    return best, best_cpu


def _row(algo: str, best: dict[str, float], best_cpu: dict[str, float]) -> str:
    cells = [algo]
    for per in (best, best_cpu):
        k, s = per.get("kusari-rl"), per.get("SB3")
        if k and s:
            cells += [f"{k:.0f} / {s:.0f}", f"{k / s:.2f}x"]
        else:
            cells += [f"{k:.0f} / -" if k else "-", "-"]
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algos", nargs="+", default=list(PLAN), choices=list(PLAN))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [
        "| algo | kusari-rl / SB3 env-steps/s (wall) | ratio "
        "| kusari-rl / SB3 env-steps/s (CPU time) | ratio |",
        "|---|---|---|---|---|",
    ]
    for algo in args.algos:
        rows.append(_row(algo, *measure(algo, args.repeats)))
    print()
    print("\n".join(rows))


if __name__ == "__main__":
    main()
