"""Training loop for one Gymnasium env (ChainerRL's ``train_agent*``)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

from kusari_rl.experiments.evaluator import Evaluator, save_agent
from kusari_rl.experiments.snapshot import load_snapshot, save_snapshot
from kusari_rl.misc.env_spaces import check_agent_env

__all__ = ["train_agent", "train_agent_with_evaluation"]


def _check_env(env: Any, name: str) -> None:
    if hasattr(env, "num_envs"):
        raise TypeError(
            f"{name}: got a vector env ({type(env).__name__}); use "
            "train_agent_batch_with_evaluation for vector envs"
        )


def train_agent(
    agent: Any,
    env: Any,
    steps: int,
    outdir: str,
    checkpoint_freq: int | None = None,
    max_episode_len: int | None = None,
    step_offset: int = 0,
    evaluator: Evaluator | None = None,
    successful_score: float | None = None,
    step_hooks: Sequence[Any] = (),
    logger: logging.Logger | None = None,
    eval_during_episode: bool = False,
    snapshot_interval: int | None = None,
    snapshot_dir: str | None = None,
    episode_offset: int = 0,
    eval_env: Any = None,
) -> list[dict[str, Any]]:
    """Train ``agent`` in ``env`` for ``steps`` steps (ChainerRL's loop).

    An episode ends on ``terminated`` (stored as terminal), ``truncated`` or
    ``max_episode_len`` (both ended without termination, so the agent still
    bootstraps from the last observation).

    Args:
        checkpoint_freq: Save the agent to ``<outdir>/<t>_checkpoint`` every
            this many steps.
        eval_during_episode: Evaluate as soon as an evaluation step is
            reached (only safe with a separate evaluation env); otherwise at
            the end of the episode, as ChainerRL does.
        snapshot_interval: Save a resumable snapshot (see
            :mod:`~kusari_rl.experiments.snapshot`) to ``snapshot_dir`` at the
            first episode boundary after every this many steps.

    Returns:
        The list of evaluation results (dicts with ``step`` and ``mean``).
    """
    _check_env(env, "train_agent")
    check_agent_env(agent, env)
    logger = logger or logging.getLogger(__name__)
    snapshot_dir = snapshot_dir or os.path.join(outdir, "snapshot")
    history: list[dict[str, Any]] = []
    t = step_offset
    episode_idx = episode_offset
    episode_r, episode_len = 0.0, 0
    next_snapshot = (
        (t // snapshot_interval + 1) * snapshot_interval if snapshot_interval else None
    )
    log_info = logger.isEnabledFor(logging.INFO)
    obs, _ = env.reset()
    r = 0.0
    try:
        while t < steps:
            action = agent.act_and_train(obs, r)
            obs, r, terminated, truncated, info = env.step(action)
            r = float(r)
            t += 1
            episode_r += r
            episode_len += 1
            for hook in step_hooks:
                hook(env, agent, t)
            reset = bool(
                truncated
                or episode_len == max_episode_len
                or info.get("needs_reset", False)
            )
            episode_end = bool(terminated) or reset or t == steps
            if episode_end:
                agent.stop_episode_and_train(obs, r, bool(terminated))
                if log_info:  # get_statistics is not free; skip it when muted
                    logger.info(
                        "outdir:%s step:%s episode:%s R:%s",
                        outdir,
                        t,
                        episode_idx,
                        episode_r,
                    )
                    logger.info("statistics:%s", agent.get_statistics())
                episode_idx += 1
            if checkpoint_freq and t % checkpoint_freq == 0:
                save_agent(agent, t, outdir, logger, suffix="_checkpoint")
            if evaluator is not None and (episode_end or eval_during_episode):
                mean = evaluator.evaluate_if_necessary(t=t, episodes=episode_idx)
                if mean is not None:
                    history.append({"step": t, "mean": mean})
                    if successful_score is not None and mean >= successful_score:
                        if not episode_end:
                            agent.stop_episode_and_train(obs, r, bool(terminated))
                        break
            if episode_end:
                if next_snapshot is not None and t >= next_snapshot and t < steps:
                    save_snapshot(
                        snapshot_dir,
                        agent,
                        step=t,
                        episode=episode_idx,
                        env=env,
                        eval_env=eval_env,
                        evaluator=evaluator,
                    )
                    next_snapshot = (t // snapshot_interval + 1) * snapshot_interval  # type: ignore[operator]
                if t == steps:
                    break
                episode_r, episode_len, r = 0.0, 0, 0.0
                obs, _ = env.reset()
    except (Exception, KeyboardInterrupt):
        save_agent(agent, t, outdir, logger, suffix="_except")
        raise
    save_agent(agent, t, outdir, logger, suffix="_finish")
    return history


def train_agent_with_evaluation(
    agent: Any,
    env: Any,
    steps: int,
    eval_n_steps: int | None,
    eval_n_episodes: int | None,
    eval_interval: int,
    outdir: str,
    checkpoint_freq: int | None = None,
    train_max_episode_len: int | None = None,
    step_offset: int = 0,
    eval_max_episode_len: int | None = None,
    eval_env: Any = None,
    successful_score: float | None = None,
    step_hooks: Sequence[Any] = (),
    save_best_so_far_agent: bool = True,
    logger: logging.Logger | None = None,
    snapshot_interval: int | None = None,
    resume: str | None = None,
) -> list[dict[str, Any]]:
    """Train ``agent`` in ``env``, evaluating it every ``eval_interval`` steps.

    Evaluation results go to ``<outdir>/scores.txt`` and ``<outdir>/log``;
    the best agent so far is saved to ``<outdir>/best`` and the final one to
    ``<outdir>/<steps>_finish``.

    Args:
        agent: Agent to train.
        env: Training env (Gymnasium API).
        steps: Total number of training steps.
        eval_n_steps, eval_n_episodes: Budget of each evaluation (give one).
        eval_interval: Steps between evaluations.
        outdir: Output directory.
        eval_env: Separate evaluation env (``env`` is used when None, and
            then evaluations happen only at episode ends).
        successful_score: Stop once an evaluation's mean reaches this.
        snapshot_interval: Save a resumable snapshot to ``<outdir>/snapshot``
            at the first episode end after every this many steps.
        resume: Snapshot directory to resume from; the run continues at the
            snapshot's step with the agent, replay buffer and RNGs restored.

    Returns:
        Evaluation history: ``[{'step': t, 'mean': score}, ...]``.

    Example:
        >>> train_agent_with_evaluation(  # doctest: +SKIP
        ...     agent, env, steps=10**5, eval_n_steps=None, eval_n_episodes=10,
        ...     eval_interval=10**4, outdir='result')
    """
    _check_env(env, "train_agent_with_evaluation")
    logger = logger or logging.getLogger(__name__)
    os.makedirs(outdir, exist_ok=True)
    separate_eval_env = eval_env is not None
    if eval_env is None:
        eval_env = env
    if eval_max_episode_len is None:
        eval_max_episode_len = train_max_episode_len
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
    if resume is not None:
        info = load_snapshot(
            resume, agent, env=env, eval_env=eval_env, evaluator=evaluator
        )
        step_offset, episode_offset = info["step"], info["episode"]
        logger.info("Resumed from %s at step %d", resume, step_offset)
    return train_agent(
        agent,
        env,
        steps,
        outdir,
        checkpoint_freq=checkpoint_freq,
        max_episode_len=train_max_episode_len,
        step_offset=step_offset,
        evaluator=evaluator,
        successful_score=successful_score,
        step_hooks=step_hooks,
        logger=logger,
        snapshot_interval=snapshot_interval,
        snapshot_dir=os.path.join(outdir, "snapshot"),
        episode_offset=episode_offset,
        eval_env=eval_env if separate_eval_env else None,
    )
