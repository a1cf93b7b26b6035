"""Training loop over a Gymnasium vector env (sync or async)."""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np

from kusari_rl.experiments.evaluator import Evaluator, save_agent
from kusari_rl.experiments.snapshot import (
    load_snapshot,
    save_snapshot,
    set_vector_env_state,
    vector_env_state,
)
from kusari_rl.experiments.vector import ended_observations, reset_done_envs
from kusari_rl.misc.env_spaces import check_agent_env

__all__ = ["train_agent_batch", "train_agent_batch_with_evaluation"]


def _check_vector_env(env: Any, name: str) -> None:
    if not hasattr(env, "num_envs"):
        raise TypeError(
            f"{name}: expected a Gymnasium vector env (gymnasium.vector.SyncVectorEnv "
            f"or AsyncVectorEnv), got {type(env).__name__}; use "
            "train_agent_with_evaluation for a single env"
        )


def train_agent_batch(
    agent: Any,
    env: Any,
    steps: int,
    outdir: str,
    checkpoint_freq: int | None = None,
    log_interval: int | None = None,
    max_episode_len: int | None = None,
    step_offset: int = 0,
    evaluator: Evaluator | None = None,
    successful_score: float | None = None,
    step_hooks: Sequence[Any] = (),
    return_window_size: int = 100,
    logger: logging.Logger | None = None,
    snapshot_interval: int | None = None,
    episode_offset: int = 0,
    eval_env: Any = None,
    resume_state: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Train ``agent`` with ``batch_act_and_train``/``batch_observe_and_train``.

    ``steps`` counts environment steps summed over the sub-envs. Per sub-env,
    ``terminated`` is passed as ``batch_done`` and ``truncated`` (or a
    ``max_episode_len`` cut) as ``batch_reset``.

    Args:
        log_interval: Log recent returns every this many steps.
        return_window_size: Episodes averaged in those log lines.
        snapshot_interval: Save a snapshot to ``<outdir>/snapshot`` after
            every this many steps. Sub-envs are mid-episode then; with a
            ``SyncVectorEnv`` the snapshot holds their state too (see
            :func:`~kusari_rl.experiments.snapshot.vector_env_state`), so
            the resumed run is the uninterrupted one. An ``AsyncVectorEnv``
            resumes with fresh episodes.
        resume_state: The loop's state from a snapshot (``extra['batch']``
            of :func:`~kusari_rl.experiments.snapshot.load_snapshot`):
            continue the sub-envs' episodes instead of resetting them.

    Returns:
        Evaluation history: ``[{'step': t, 'mean': score}, ...]``.
    """
    _check_vector_env(env, "train_agent_batch")
    check_agent_env(agent, env)
    logger = logger or logging.getLogger(__name__)
    num_envs = env.num_envs
    recent_returns: deque[float] = deque(maxlen=return_window_size)
    history: list[dict[str, Any]] = []
    episode_r = np.zeros(num_envs, dtype=np.float64)
    episode_idx = np.zeros(num_envs, dtype=np.int64)
    episode_len = np.zeros(num_envs, dtype=np.int64)
    n_done = episode_offset
    t = step_offset
    no_cut = np.zeros(num_envs, dtype=bool)
    next_snapshot = (
        (t // snapshot_interval + 1) * snapshot_interval if snapshot_interval else None
    )
    obss, _ = env.reset()
    if resume_state is not None:
        # After the reset above: it initialises the vector env, and the
        # restored state then overwrites whatever it changed.
        set_vector_env_state(env, resume_state["env"])
        obss = resume_state["obss"]
        episode_r[:] = resume_state["episode_r"]
        episode_idx[:] = resume_state["episode_idx"]
        episode_len[:] = resume_state["episode_len"]
        recent_returns.extend(resume_state["recent_returns"])
    try:
        while True:
            actions = agent.batch_act_and_train(obss)
            obss, rs, terms, truncs, infos = env.step(np.asarray(actions))
            terms = np.asarray(terms, dtype=bool)
            truncs = np.asarray(truncs, dtype=bool)
            episode_r += rs
            episode_len += 1
            cut = (
                episode_len >= max_episode_len
                if max_episode_len is not None
                else no_cut.copy()
            )
            needs_reset = infos.get("needs_reset")
            if needs_reset is not None:
                cut |= np.asarray(needs_reset, dtype=bool) & infos.get(
                    "_needs_reset", np.ones(num_envs, dtype=bool)
                )
            ended = terms | truncs | cut
            resets = (truncs | cut) & ~terms
            last_obss = ended_observations(env, obss, infos, ended)
            agent.batch_observe_and_train(last_obss, rs, terms, resets)
            for i in np.flatnonzero(ended):
                recent_returns.append(float(episode_r[i]))
            n_done += int(ended.sum())
            episode_idx += ended
            episode_r[ended] = 0.0
            episode_len[ended] = 0
            prev_t = t
            t += num_envs
            for hook in step_hooks:
                hook(env, agent, t)
            if log_interval is not None and t // log_interval > prev_t // log_interval:
                logger.info(
                    "outdir:%s step:%s episode:%s last_R:%s average_R:%s",
                    outdir,
                    t,
                    n_done,
                    recent_returns[-1] if recent_returns else None,
                    float(np.mean(recent_returns)) if recent_returns else None,
                )
                logger.info("statistics:%s", agent.get_statistics())
            if evaluator is not None:
                mean = evaluator.evaluate_if_necessary(t=t, episodes=n_done)
                if mean is not None:
                    history.append({"step": t, "mean": mean})
                    if successful_score is not None and mean >= successful_score:
                        break
            if checkpoint_freq and t // checkpoint_freq > prev_t // checkpoint_freq:
                save_agent(agent, t, outdir, logger, suffix="_checkpoint")
            if t >= steps:
                break
            obss = reset_done_envs(env, obss, ended, cut & ~(terms | truncs))
            if next_snapshot is not None and t >= next_snapshot:
                env_state = vector_env_state(env)
                batch = None
                if env_state is not None:
                    batch = {
                        "env": env_state,
                        "obss": obss,
                        "episode_r": episode_r,
                        "episode_idx": episode_idx,
                        "episode_len": episode_len,
                        "recent_returns": list(recent_returns),
                    }
                save_snapshot(
                    os.path.join(outdir, "snapshot"),
                    agent,
                    step=t,
                    episode=n_done,
                    env=None,
                    eval_env=evaluator.env if evaluator is not None else None,
                    evaluator=evaluator,
                    extra={"batch": batch},
                )
                next_snapshot = (t // snapshot_interval + 1) * snapshot_interval
    except (Exception, KeyboardInterrupt):
        save_agent(agent, t, outdir, logger, suffix="_except")
        env.close()
        if evaluator is not None and evaluator.env is not env:
            evaluator.env.close()
        raise
    save_agent(agent, t, outdir, logger, suffix="_finish")
    return history


def train_agent_batch_with_evaluation(
    agent: Any,
    env: Any,
    steps: int,
    eval_n_steps: int | None,
    eval_n_episodes: int | None,
    eval_interval: int,
    outdir: str,
    checkpoint_freq: int | None = None,
    max_episode_len: int | None = None,
    step_offset: int = 0,
    eval_max_episode_len: int | None = None,
    return_window_size: int = 100,
    eval_env: Any = None,
    log_interval: int | None = None,
    successful_score: float | None = None,
    step_hooks: Sequence[Any] = (),
    save_best_so_far_agent: bool = True,
    logger: logging.Logger | None = None,
    snapshot_interval: int | None = None,
    resume: str | None = None,
) -> list[dict[str, Any]]:
    """Train with a vector env, evaluating every ``eval_interval`` steps.

    Same files and arguments as
    :func:`~kusari_rl.experiments.train_agent_with_evaluation`; ``env`` (and
    ``eval_env``, a single or vector env) come from ``gymnasium.vector`` or
    :func:`~kusari_rl.experiments.make_vector_env`.
    """
    _check_vector_env(env, "train_agent_batch_with_evaluation")
    logger = logger or logging.getLogger(__name__)
    os.makedirs(outdir, exist_ok=True)
    if eval_env is None or eval_env is env:
        # Evaluating in the training env would reset its sub-envs in the
        # middle of the agent's episodes.
        raise ValueError(
            "train_agent_batch_with_evaluation: pass a separate eval_env (a single "
            "env or another vector env); evaluating in the training vector env "
            "would cut its episodes"
        )
    if eval_max_episode_len is None:
        eval_max_episode_len = max_episode_len
    evaluator = Evaluator(
        agent=agent,
        n_steps=eval_n_steps,
        n_episodes=eval_n_episodes,
        eval_interval=eval_interval,
        outdir=outdir,
        max_episode_len=eval_max_episode_len,
        env=eval_env,
        step_offset=step_offset,
        save_best_so_far_agent=save_best_so_far_agent,
        logger=logger,
    )
    episode_offset = 0
    resume_state = None
    if resume is not None:
        info = load_snapshot(resume, agent, eval_env=eval_env, evaluator=evaluator)
        step_offset, episode_offset = info["step"], info["episode"]
        resume_state = info["extra"].get("batch")
        if resume_state is None or not hasattr(env, "envs"):
            # No sub-env state (an AsyncVectorEnv was, or is, in use): the
            # envs start afresh, so end the stored episodes as cut (not
            # terminal) so that no n-step window joins two episodes.
            resume_state = None
            buffer = getattr(agent, "replay_buffer", None)
            if buffer is not None:
                for env_id in range(env.num_envs):
                    buffer.stop_current_episode(env_id=env_id)
            logger.warning(
                "Resumed from %s at step %d with fresh episodes (the sub-envs' "
                "state is only kept for a SyncVectorEnv)",
                resume,
                step_offset,
            )
        else:
            logger.info("Resumed from %s at step %d", resume, step_offset)
    return train_agent_batch(
        agent,
        env,
        steps,
        outdir,
        checkpoint_freq=checkpoint_freq,
        max_episode_len=max_episode_len,
        step_offset=step_offset,
        evaluator=evaluator,
        successful_score=successful_score,
        step_hooks=step_hooks,
        return_window_size=return_window_size,
        log_interval=log_interval,
        logger=logger,
        snapshot_interval=snapshot_interval,
        episode_offset=episode_offset,
        resume_state=resume_state,
    )
