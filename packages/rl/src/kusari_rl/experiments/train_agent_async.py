"""Asynchronous training in worker processes (ChainerRL's ``train_agent_async``).

The agent's ``shared_attributes`` (for A3C: the shared model and the
optimizer) are moved into shared memory, then ``processes`` worker processes
are forked. Each worker makes its own environment (and agent, with
``make_agent``), runs episodes and updates the shared parameters without
locks. A global step counter in shared memory decides when training ends and
when an evaluation is due; the evaluating worker uses its own test env.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from typing import Any

import kusari
from kusari_rl.experiments.evaluator import AsyncEvaluator, save_agent
from kusari_rl.misc import async_
from kusari_rl.misc.random_seed import set_random_seed

__all__ = ["train_agent_async", "train_loop"]


def _shared_objects(agent: Any) -> dict[str, Any]:
    return {
        name: async_.as_shared_objects(getattr(agent, name))
        for name in agent.shared_attributes
    }


def _attach_shared_objects(agent: Any, shared: dict[str, Any]) -> None:
    for name, value in shared.items():
        obj = getattr(agent, name)
        if isinstance(obj, kusari.Link):
            async_.set_shared_params(obj, value)
        else:
            async_.set_shared_states(obj, value)
    if hasattr(agent, "sync_parameters"):
        agent.sync_parameters()


def train_loop(
    process_idx: int,
    env: Any,
    agent: Any,
    steps: int,
    outdir: str,
    counter: Any,
    episodes_counter: Any,
    training_done: Any,
    max_episode_len: int | None = None,
    evaluator: AsyncEvaluator | None = None,
    eval_env: Any = None,
    successful_score: float | None = None,
    global_step_hooks: Sequence[Any] = (),
    logger: logging.Logger | None = None,
) -> None:
    """One worker's loop: act, learn, count steps globally, evaluate when due."""
    logger = logger or logging.getLogger(__name__)
    successful = False
    obs, _ = env.reset(seed=process_idx)
    r = 0.0
    episode_r = 0.0
    episode_len = 0
    global_t = 0
    try:
        while True:
            action = agent.act_and_train(obs, r)
            obs, r, terminated, truncated, info = env.step(action)
            episode_r += r
            episode_len += 1
            with counter.get_lock():
                counter.value += 1
                global_t = counter.value
            for hook in global_step_hooks:
                hook(env, agent, global_t)
            cut = truncated or (
                max_episode_len is not None and episode_len >= max_episode_len
            )
            if terminated or cut or global_t >= steps or training_done.value:
                agent.stop_episode_and_train(obs, r, done=bool(terminated))
                with episodes_counter.get_lock():
                    episodes_counter.value += 1
                    global_episodes = episodes_counter.value
                if process_idx == 0:
                    logger.info(
                        "outdir:%s global_step:%s episode:%s R:%s statistics:%s",
                        outdir,
                        global_t,
                        global_episodes,
                        episode_r,
                        agent.get_statistics(),
                    )
                if evaluator is not None:
                    score = evaluator.evaluate_if_necessary(
                        t=global_t, episodes=global_episodes, env=eval_env, agent=agent
                    )
                    if (
                        score is not None
                        and successful_score is not None
                        and score >= successful_score
                    ):
                        with training_done.get_lock():
                            if not training_done.value:
                                training_done.value = True
                                successful = True
                if global_t >= steps or training_done.value:
                    break
                obs, _ = env.reset()
                r = 0.0
                episode_r = 0.0
                episode_len = 0
    except (Exception, KeyboardInterrupt):
        if process_idx == 0:
            save_agent(agent, global_t, outdir, logger, suffix="_except")
        raise
    if successful:
        save_agent(agent, "successful", outdir, logger)
    elif process_idx == 0:
        save_agent(agent, global_t, outdir, logger, suffix="_finish")


def train_agent_async(
    outdir: str,
    processes: int,
    make_env: Callable[[int, bool], Any],
    profile: bool = False,
    steps: int = 8 * 10**7,
    eval_interval: int | None = 10**6,
    eval_n_steps: int | None = None,
    eval_n_episodes: int | None = 10,
    max_episode_len: int | None = None,
    step_offset: int = 0,
    successful_score: float | None = None,
    agent: Any = None,
    make_agent: Callable[[int], Any] | None = None,
    global_step_hooks: Sequence[Any] = (),
    save_best_so_far_agent: bool = True,
    logger: logging.Logger | None = None,
) -> Any:
    """Train an asynchronous agent (A3C) with ``processes`` worker processes.

    Args:
        outdir: Directory for ``scores.txt``, ``log`` and saved agents.
        processes: Number of worker processes.
        make_env: ``make_env(process_idx, test)`` returns a Gymnasium env.
        profile: Unused; kept for ChainerRL compatibility.
        steps: Total environment steps over all workers.
        eval_interval: Steps between evaluations (None: no evaluation).
        eval_n_steps: Evaluation budget in steps (or use ``eval_n_episodes``).
        eval_n_episodes: Evaluation budget in episodes.
        max_episode_len: Cut training episodes at this length.
        step_offset: Step count to start from.
        successful_score: Stop once an evaluation reaches it.
        agent: The agent (its shared attributes are shared by all workers).
        make_agent: ``make_agent(process_idx)`` building one agent per
            worker, whose shared attributes are then tied to ``agent``'s (or
            to the first made agent's when ``agent`` is None).
        global_step_hooks: ``hook(env, agent, global_step)`` called every step.
        save_best_so_far_agent: Save the best evaluated agent to ``best/``.
        logger: Logger.

    Returns:
        The agent whose shared parameters were trained.
    """
    logger = logger or logging.getLogger(__name__)
    if processes <= 0:
        raise ValueError(
            f"train_agent_async: processes must be positive, got {processes}"
        )
    if agent is None:
        if make_agent is None:
            raise ValueError("train_agent_async: pass agent or make_agent")
        agent = make_agent(0)
    if not hasattr(agent, "shared_attributes"):
        raise TypeError(
            f"train_agent_async: {type(agent).__name__} is not an asynchronous agent "
            "(it has no shared_attributes); train it with "
            "train_agent_with_evaluation or train_agent_batch_with_evaluation"
        )
    os.makedirs(outdir, exist_ok=True)
    # Each worker is one process; BLAS threads would only compete with them.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    counter = mp.Value("l", step_offset)
    episodes_counter = mp.Value("l", 0)
    training_done = mp.Value("b", False)
    shared = _shared_objects(agent)
    evaluator = None
    if eval_interval is not None:
        evaluator = AsyncEvaluator(
            n_steps=eval_n_steps,
            n_episodes=eval_n_episodes,
            eval_interval=eval_interval,
            outdir=outdir,
            max_episode_len=max_episode_len,
            step_offset=step_offset,
            save_best_so_far_agent=save_best_so_far_agent,
            logger=logger,
        )

    def run_func(process_idx: int) -> None:
        set_random_seed(process_idx)
        env = make_env(process_idx, False)
        eval_env = make_env(process_idx, True) if evaluator is not None else None
        if make_agent is not None and process_idx > 0:
            local_agent = make_agent(process_idx)
            _attach_shared_objects(local_agent, shared)
        else:
            local_agent = agent
            if hasattr(local_agent, "sync_parameters"):
                local_agent.sync_parameters()
        local_agent.process_idx = process_idx
        try:
            train_loop(
                process_idx=process_idx,
                env=env,
                agent=local_agent,
                steps=steps,
                outdir=outdir,
                counter=counter,
                episodes_counter=episodes_counter,
                training_done=training_done,
                max_episode_len=max_episode_len,
                evaluator=evaluator,
                eval_env=eval_env,
                successful_score=successful_score,
                global_step_hooks=global_step_hooks,
                logger=logger,
            )
        finally:
            env.close()
            if eval_env is not None:
                eval_env.close()

    async_.run_async(processes, run_func)
    # The parent's agent shares the trained parameters; refresh its local copy.
    if hasattr(agent, "sync_parameters"):
        agent.sync_parameters()
    return agent
