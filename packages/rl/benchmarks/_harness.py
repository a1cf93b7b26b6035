"""Shared loop of the RL benchmarks: train in chunks, evaluate, time, tabulate.

Every framework is driven the same way: ``eval_interval`` environment steps
of training (timed), then ``eval_episodes`` greedy episodes on a separate
environment (not timed). A run is *solved* at the first evaluation whose mean
return reaches the threshold, and *stays solved* when the evaluations after
it (``after_solve`` more) are above the threshold too. Env-steps per second
count training steps over training time only, so both frameworks are charged
for the same work: acting, learning and the environment.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

# One thread everywhere, set before NumPy / PyTorch start their pools.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402


@dataclasses.dataclass
class Result:
    """The outcome of one (framework, algorithm, seed) run."""

    framework: str
    algo: str
    seed: int
    solved_at: int | None = None
    stays_solved: bool | None = None
    steps: int = 0
    train_seconds: float = 0.0
    evals: list[tuple[int, float]] = dataclasses.field(default_factory=list)
    error: str | None = None

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.train_seconds if self.train_seconds else float("nan")


@dataclasses.dataclass
class Task:
    """An environment, a bar to clear and a budget."""

    env_id: str
    threshold: float
    max_steps: int
    eval_interval: int
    eval_episodes: int
    after_solve: int = 2


# Progress lines go out at once, also when stdout is a file.
_print = functools.partial(print, flush=True)


class Trainer(abc.ABC):
    """What a framework adapter provides: train ``n`` steps, act greedily."""

    @abc.abstractmethod
    def train(self, n_steps: int) -> None:
        """Run ``n_steps`` environment steps of training."""

    @abc.abstractmethod
    def greedy_action(self, obs: Any) -> Any:
        """The evaluation action for one observation."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release resources (environments)."""


def evaluate(
    act: Callable[[Any], Any], env: gym.Env, n_episodes: int, seed: int
) -> float:
    """Mean undiscounted return of ``n_episodes`` episodes acting with ``act``."""
    returns = []
    for i in range(n_episodes):
        obs, _ = env.reset(seed=seed + i)
        total, done = 0.0, False
        while not done:
            obs, r, terminated, truncated, _ = env.step(act(obs))
            total += float(r)
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def run(
    framework: str,
    algo: str,
    seed: int,
    task: Task,
    make_trainer: Callable[[int], Trainer],
    make_eval_env: Callable[[], gym.Env],
    log: Callable[[str], None] = _print,
) -> Result:
    """Train until solved (plus ``after_solve`` evaluations) or out of budget."""
    result = Result(framework, algo, seed)
    try:
        trainer = make_trainer(seed)
    except ImportError as e:
        result.error = f"not installed ({e.name})"
        return result
    eval_env = make_eval_env()
    evals_after = 0
    try:
        while result.steps < task.max_steps:
            t0 = time.perf_counter()
            trainer.train(task.eval_interval)
            result.train_seconds += time.perf_counter() - t0
            result.steps += task.eval_interval
            score = evaluate(
                trainer.greedy_action, eval_env, task.eval_episodes, 10_000 + seed * 100
            )
            result.evals.append((result.steps, score))
            log(
                f"  {framework:8s} {algo:4s} seed={seed} step={result.steps:6d} "
                f"eval={score:8.1f} ({result.steps_per_second:6.1f} steps/s)"
            )
            if result.solved_at is None:
                if score >= task.threshold:
                    result.solved_at = result.steps
                    result.stays_solved = True
                    if task.after_solve == 0:
                        break
            else:
                evals_after += 1
                if score < task.threshold:
                    result.stays_solved = False
                if evals_after >= task.after_solve:
                    break
    finally:
        trainer.close()
        eval_env.close()
    return result


def _fmt_steps(n: int | None) -> str:
    return "-" if n is None else f"{n / 1000:g}k"


def table(results: list[Result], task_of: dict[str, Task]) -> str:
    """Markdown table: one row per algorithm, frameworks side by side."""
    algos = list(dict.fromkeys(r.algo for r in results))
    frameworks = list(dict.fromkeys(r.framework for r in results))
    head = ["algo (env, bar)"]
    for fw in frameworks:
        head += [f"{fw} steps to solve", f"{fw} median", f"{fw} env-steps/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for algo in algos:
        task = task_of[algo]
        row = [f"{algo} ({task.env_id}, {task.threshold:g})"]
        for fw in frameworks:
            rs = [r for r in results if r.algo == algo and r.framework == fw]
            if not rs:
                row += ["", "", ""]
                continue
            if all(r.error for r in rs):
                row += [rs[0].error or "", "", ""]
                continue
            cells = []
            for r in rs:
                mark = "" if r.stays_solved in (None, True) else " (fell back)"
                cells.append(
                    _fmt_steps(r.solved_at)
                    if r.solved_at
                    else f">{_fmt_steps(r.steps)}"
                )
                cells[-1] += mark
            solved = [r.solved_at for r in rs if r.solved_at is not None]
            median = (
                _fmt_steps(int(statistics.median(solved)))
                if len(solved) == len(rs)
                else "unsolved"
            )
            total_steps = sum(r.steps for r in rs)
            total_time = sum(r.train_seconds for r in rs)
            sps = f"{total_steps / total_time:.0f}" if total_time else "-"
            row += [", ".join(cells), median, sps]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(
    title: str,
    tasks: dict[str, Task],
    kusari_factories: dict[str, Callable[[int], Trainer]],
    make_eval_env: Callable[[str], gym.Env],
    sb3_run: Callable[..., Result] | None,
    argv: list[str] | None = None,
    notes: str = "",
) -> list[Result]:
    """Command line shared by the ``bench_*.py`` scripts."""
    import argparse

    parser = argparse.ArgumentParser(description=title)
    parser.add_argument(
        "--algos",
        nargs="+",
        default=list(tasks),
        choices=list(tasks),
        help="algorithms to run (default: all)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="seeds (default: 0; the full benchmark uses 0 1 2)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="step budget per run (default: per algorithm)",
    )
    parser.add_argument(
        "--after-solve",
        type=int,
        default=None,
        help="evaluations after the first solve that must stay above the bar",
    )
    parser.add_argument(
        "--frameworks",
        nargs="+",
        default=["kusari-rl", "SB3"],
        choices=["kusari-rl", "SB3"],
    )
    args = parser.parse_args(argv)
    results: list[Result] = []
    for algo in args.algos:
        task = dataclasses.replace(tasks[algo])
        if args.steps is not None:
            task.max_steps = args.steps
        if args.after_solve is not None:
            task.after_solve = args.after_solve
        tasks[algo] = task
        for seed in args.seeds:
            if "kusari-rl" in args.frameworks:
                results.append(
                    run(
                        "kusari-rl",
                        algo,
                        seed,
                        task,
                        kusari_factories[algo],
                        lambda env_id=task.env_id: make_eval_env(env_id),
                    )
                )
            if "SB3" in args.frameworks and sb3_run is not None:
                results.append(sb3_run(algo, seed, task))
    print()
    print(f"## {title}")
    print()
    print(table(results, tasks))
    if notes:
        print()
        print(notes)
    return results
