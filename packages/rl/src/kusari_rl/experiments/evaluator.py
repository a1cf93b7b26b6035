"""Evaluation episodes and the Evaluator that logs them during training.

The Evaluator writes two files in the output directory:

* ``scores.txt``: ChainerRL's tab-separated table (``steps episodes elapsed
  mean median stdev max min`` then the agent's statistics);
* ``log``: the same rows as a JSON list of dicts in Chainer's LogReport
  format (``iteration`` = steps, ``episode``, ``elapsed_time``, metrics),
  rewritten atomically after each evaluation so kusari-ui can follow it.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import statistics
import time
from typing import Any

import numpy as np

from kusari_rl.experiments.prepare_output_dir import write_json_atomic
from kusari_rl.experiments.vector import ended_observations, reset_done_envs

__all__ = [
    "AsyncEvaluator",
    "Evaluator",
    "batch_run_evaluation_episodes",
    "eval_performance",
    "record_stats",
    "run_evaluation_episodes",
    "save_agent",
]

_SCORE_COLUMNS = (
    "steps",
    "episodes",
    "elapsed",
    "mean",
    "median",
    "stdev",
    "max",
    "min",
)


def _check_budget(n_steps: int | None, n_episodes: int | None) -> None:
    if (n_steps is None) == (n_episodes is None):
        raise ValueError(
            "evaluation: give exactly one of n_steps and n_episodes, got "
            f"n_steps={n_steps}, n_episodes={n_episodes}"
        )


def run_evaluation_episodes(
    env: Any,
    agent: Any,
    n_steps: int | None,
    n_episodes: int | None,
    max_episode_len: int | None = None,
    logger: logging.Logger | None = None,
) -> list[float]:
    """Run greedy episodes in a single Gymnasium env; return their returns.

    With ``n_steps``, episodes run until that many steps are used; the
    unfinished last one is dropped unless it is the only one.
    """
    _check_budget(n_steps, n_episodes)
    logger = logger or logging.getLogger(__name__)
    scores: list[float] = []
    timestep = 0
    with agent.eval_mode():
        while True:
            obs, _ = env.reset()
            ret, ep_len, done = 0.0, 0, False
            while not done:
                action = agent.act(obs)
                obs, r, terminated, truncated, _ = env.step(action)
                ret += float(r)
                ep_len += 1
                timestep += 1
                cut = max_episode_len is not None and ep_len >= max_episode_len
                done = bool(terminated or truncated or cut)
                if n_steps is not None and timestep >= n_steps and not done:
                    agent.stop_episode()
                    if not scores:
                        scores.append(ret)
                    return scores
            agent.stop_episode()
            scores.append(ret)
            logger.info(
                "evaluation episode %d length:%d R:%s", len(scores) - 1, ep_len, ret
            )
            if n_episodes is not None and len(scores) >= n_episodes:
                return scores
            if n_steps is not None and timestep >= n_steps:
                return scores


def batch_run_evaluation_episodes(
    env: Any,
    agent: Any,
    n_steps: int | None,
    n_episodes: int | None,
    max_episode_len: int | None = None,
    logger: logging.Logger | None = None,
) -> list[float]:
    """Run greedy episodes in a Gymnasium vector env; return their returns.

    With ``n_episodes``, env ``i`` contributes its episodes number ``i, i+k,
    ...`` (``k`` envs), so short episodes are not favoured.
    """
    _check_budget(n_steps, n_episodes)
    logger = logger or logging.getLogger(__name__)
    num_envs = env.num_envs
    quota = np.zeros(num_envs, dtype=np.int64)
    if n_episodes is not None:
        quota[:] = n_episodes // num_envs
        quota[: n_episodes % num_envs] += 1
    results: list[list[float]] = [[] for _ in range(num_envs)]
    ret = np.zeros(num_envs)
    ep_len = np.zeros(num_envs, dtype=np.int64)
    timestep = 0
    obss, _ = env.reset()
    with agent.eval_mode():
        while True:
            actions = agent.batch_act(obss)
            obss, rs, terms, truncs, infos = env.step(np.asarray(actions))
            ret += rs
            ep_len += 1
            timestep += num_envs
            cut = (
                ep_len >= max_episode_len
                if max_episode_len is not None
                else np.zeros(num_envs, dtype=bool)
            )
            ended = terms | truncs | cut
            last = ended_observations(env, obss, infos, ended)
            out_of_steps = n_steps is not None and timestep >= n_steps
            resets = cut | truncs | (out_of_steps & ~ended)
            agent.batch_observe(last, rs, terms, resets)
            for i in np.flatnonzero(ended):
                if n_episodes is None or len(results[i]) < quota[i]:
                    results[i].append(float(ret[i]))
                    logger.info("evaluation episode length:%d R:%s", ep_len[i], ret[i])
            ret[ended] = 0.0
            ep_len[ended] = 0
            if n_episodes is not None and all(
                len(results[i]) >= quota[i] for i in range(num_envs)
            ):
                break
            if out_of_steps:
                break
            obss = reset_done_envs(env, obss, ended, ended & ~(terms | truncs))
    scores = [s for r in results for s in r]
    if not scores and n_steps is not None:
        # No episode finished within the budget: report the longest partial one.
        scores = [float(ret.max())]
    return scores


def _is_vector_env(env: Any) -> bool:
    return hasattr(env, "num_envs")


def eval_performance(
    env: Any,
    agent: Any,
    n_steps: int | None,
    n_episodes: int | None,
    max_episode_len: int | None = None,
    logger: logging.Logger | None = None,
) -> dict[str, float]:
    """Evaluate ``agent`` in ``env`` (single or vector); return score stats.

    Returns:
        ``{'mean', 'median', 'stdev', 'max', 'min'}`` of the episode returns
        (``stdev`` is 0 for a single episode).
    """
    run = (
        batch_run_evaluation_episodes
        if _is_vector_env(env)
        else run_evaluation_episodes
    )
    scores = run(env, agent, n_steps, n_episodes, max_episode_len, logger)
    return {
        "mean": statistics.mean(scores),
        "median": statistics.median(scores),
        "stdev": statistics.stdev(scores) if len(scores) >= 2 else 0.0,
        "max": max(scores),
        "min": min(scores),
    }


def record_stats(outdir: str, values: list[Any]) -> None:
    """Append one tab-separated row to ``<outdir>/scores.txt``."""
    with open(os.path.join(outdir, "scores.txt"), "a") as f:
        print("\t".join(str(x) for x in values), file=f)


def save_agent(
    agent: Any,
    t: int | str,
    outdir: str,
    logger: logging.Logger | None = None,
    suffix: str = "",
) -> str:
    """Save ``agent`` to ``<outdir>/<t><suffix>`` and return that path."""
    dirname = os.path.join(outdir, f"{t}{suffix}")
    agent.save(dirname)
    (logger or logging.getLogger(__name__)).info("Saved the agent to %s", dirname)
    return dirname


def _write_header(outdir: str, agent: Any) -> list[str]:
    names = list(_SCORE_COLUMNS) + [name for name, _ in agent.get_statistics()]
    path = os.path.join(outdir, "scores.txt")
    if not os.path.exists(path):
        with open(path, "w") as f:
            print("\t".join(names), file=f)
    return names


class Evaluator:
    """Evaluates the agent every ``eval_interval`` steps and logs the scores.

    Args:
        agent: Agent to evaluate.
        env: Evaluation env (single or vector).
        n_steps, n_episodes: Evaluation budget (exactly one is given).
        eval_interval: Steps between evaluations.
        outdir: Where ``scores.txt``, ``log`` and ``best/`` go.
        max_episode_len: Cut evaluation episodes here.
        step_offset: Step at which training starts (when resuming).
        save_best_so_far_agent: Save the agent to ``outdir/best`` whenever
            the mean score improves.
        logger: Logger for progress messages.
    """

    def __init__(
        self,
        agent: Any,
        env: Any,
        n_steps: int | None,
        n_episodes: int | None,
        eval_interval: int,
        outdir: str,
        max_episode_len: int | None = None,
        step_offset: int = 0,
        save_best_so_far_agent: bool = True,
        logger: logging.Logger | None = None,
    ) -> None:
        _check_budget(n_steps, n_episodes)
        if eval_interval <= 0:
            raise ValueError(
                f"Evaluator: eval_interval must be positive, got {eval_interval}"
            )
        self.agent = agent
        self.env = env
        self.max_score = float("-inf")
        self.n_steps = n_steps
        self.n_episodes = n_episodes
        self.eval_interval = eval_interval
        self.outdir = outdir
        self.max_episode_len = max_episode_len
        self.step_offset = step_offset
        self.prev_eval_t = step_offset - step_offset % eval_interval
        self.save_best_so_far_agent = save_best_so_far_agent
        self.logger = logger or logging.getLogger(__name__)
        self.start_time = time.time()
        self.log_entries: list[dict[str, Any]] = []
        self._columns = _write_header(outdir, agent)

    def evaluate_and_update_max_score(self, t: int, episodes: int) -> float:
        """Evaluate now, log the row, save the best agent; return the mean."""
        stats = eval_performance(
            self.env,
            self.agent,
            self.n_steps,
            self.n_episodes,
            self.max_episode_len,
            self.logger,
        )
        elapsed = time.time() - self.start_time
        agent_stats = self.agent.get_statistics()
        row = [
            t,
            episodes,
            elapsed,
            stats["mean"],
            stats["median"],
            stats["stdev"],
            stats["max"],
            stats["min"],
        ] + [v for _, v in agent_stats]
        record_stats(self.outdir, row)
        entry: dict[str, Any] = {
            "iteration": t,
            "episode": episodes,
            "elapsed_time": elapsed,
        }
        entry.update(stats)
        entry.update({name: _finite(v) for name, v in agent_stats})
        self.log_entries.append(entry)
        write_json_atomic(os.path.join(self.outdir, "log"), self.log_entries)
        mean = stats["mean"]
        if mean > self.max_score:
            self.logger.info("The best score is updated %s -> %s", self.max_score, mean)
            self.max_score = mean
            if self.save_best_so_far_agent:
                save_agent(self.agent, "best", self.outdir, self.logger)
        return mean

    def evaluate_if_necessary(self, t: int, episodes: int) -> float | None:
        """Evaluate if an evaluation step was reached since the last one."""
        if t >= self.prev_eval_t + self.eval_interval:
            self.prev_eval_t = t - t % self.eval_interval
            return self.evaluate_and_update_max_score(t, episodes)
        return None

    def state_dict(self) -> dict[str, Any]:
        """State needed to resume (max score, schedule, log rows)."""
        return {
            "max_score": self.max_score,
            "prev_eval_t": self.prev_eval_t,
            "log_entries": list(self.log_entries),
            "elapsed": time.time() - self.start_time,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.max_score = state["max_score"]
        self.prev_eval_t = state["prev_eval_t"]
        self.log_entries = list(state["log_entries"])
        self.start_time = time.time() - state["elapsed"]


def _finite(value: Any) -> Any:
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return None  # JSON has no NaN; LogReport readers treat null as missing
    return value.item() if isinstance(value, np.generic) else value


class AsyncEvaluator:
    """Evaluator shared by asynchronous training processes.

    The best score and the last evaluation step live in shared memory, so
    whichever process crosses an evaluation step first evaluates with its own
    env and agent. The ``log`` file is rebuilt from ``scores.txt`` (which all
    processes append to) so rows from every process appear.
    """

    def __init__(
        self,
        n_steps: int | None,
        n_episodes: int | None,
        eval_interval: int,
        outdir: str,
        max_episode_len: int | None = None,
        step_offset: int = 0,
        save_best_so_far_agent: bool = True,
        logger: logging.Logger | None = None,
    ) -> None:
        _check_budget(n_steps, n_episodes)
        self.n_steps = n_steps
        self.n_episodes = n_episodes
        self.eval_interval = eval_interval
        self.outdir = outdir
        self.max_episode_len = max_episode_len
        self.step_offset = step_offset
        self.save_best_so_far_agent = save_best_so_far_agent
        self.logger = logger or logging.getLogger(__name__)
        self.start_time = time.time()
        self._max_score = mp.Value("f", float("-inf"))
        self._prev_eval_t = mp.Value("l", step_offset - step_offset % eval_interval)
        self.wrote_header = mp.Value("b", False)

    @property
    def max_score(self) -> float:
        with self._max_score.get_lock():
            return float(self._max_score.value)

    def evaluate_and_update_max_score(
        self, t: int, episodes: int, env: Any, agent: Any
    ) -> float:
        stats = eval_performance(
            env, agent, self.n_steps, self.n_episodes, self.max_episode_len, self.logger
        )
        elapsed = time.time() - self.start_time
        agent_stats = agent.get_statistics()
        row = [
            t,
            episodes,
            elapsed,
            stats["mean"],
            stats["median"],
            stats["stdev"],
            stats["max"],
            stats["min"],
        ] + [v for _, v in agent_stats]
        with self.wrote_header.get_lock():
            if not self.wrote_header.value:
                _write_header(self.outdir, agent)
                self.wrote_header.value = True
            record_stats(self.outdir, row)
            _rebuild_log(self.outdir)
        mean = stats["mean"]
        with self._max_score.get_lock():
            if mean > self._max_score.value:
                self.logger.info(
                    "The best score is updated %s -> %s", self._max_score.value, mean
                )
                self._max_score.value = mean
                if self.save_best_so_far_agent:
                    save_agent(agent, "best", self.outdir, self.logger)
        return mean

    def evaluate_if_necessary(
        self, t: int, episodes: int, env: Any, agent: Any
    ) -> float | None:
        with self._prev_eval_t.get_lock():
            due = t >= self._prev_eval_t.value + self.eval_interval
            if due:
                self._prev_eval_t.value = t - t % self.eval_interval
        if due:
            return self.evaluate_and_update_max_score(t, episodes, env, agent)
        return None


def _rebuild_log(outdir: str) -> None:
    with open(os.path.join(outdir, "scores.txt")) as f:
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    header, rows = lines[0], lines[1:]
    entries = []
    for row in rows:
        entry: dict[str, Any] = {}
        for name, text in zip(header, row):
            key = {
                "steps": "iteration",
                "episodes": "episode",
                "elapsed": "elapsed_time",
            }.get(name, name)
            try:
                entry[key] = int(text) if name in ("steps", "episodes") else float(text)
            except ValueError:
                entry[key] = None
            if isinstance(entry[key], float) and not np.isfinite(entry[key]):
                entry[key] = None
        entries.append(entry)
    write_json_atomic(os.path.join(outdir, "log"), entries)
