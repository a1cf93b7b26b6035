"""Snapshots for resuming a training run exactly where it stopped.

A snapshot directory holds ``agent/`` (``agent.save``), ``replay_buffer.pkl``
(when the agent has a ``replay_buffer``) and ``state.pkl``: the step and
episode counters, the agent's ``snapshot_attributes`` (step counters,
explorer, statistics), the global Python/NumPy RNG states, the RNG states of
the training and evaluation envs and the evaluator's state. Snapshots are
taken at episode boundaries (before the env is reset), so restoring the
env's RNG makes the next ``reset()`` return the same observation.

The directory is written next to its final place and renamed into it, so an
interrupted save never leaves a half-written snapshot. ``state.pkl`` and the
replay buffer are pickles: load only snapshots you wrote.
"""

from __future__ import annotations

import os
import pickle
import shutil
from typing import Any

from kusari.utils.atomic import atomic_write
from kusari_rl.misc.random_seed import get_random_state, set_random_state

__all__ = ["env_random_state", "load_snapshot", "save_snapshot", "set_env_random_state"]

_FORMAT = "kusari_rl.snapshot/1"


def _sub_envs(env: Any) -> list[Any]:
    if env is None:
        return []
    if hasattr(env, "envs"):  # SyncVectorEnv
        return list(env.envs)
    if hasattr(env, "num_envs"):
        return []  # AsyncVectorEnv: the sub-envs live in other processes
    return [env]


def env_random_state(env: Any) -> list[dict[str, Any]]:
    """RNG states of an env (or of each sub-env of a SyncVectorEnv)."""
    states = []
    for e in _sub_envs(env):
        states.append(
            {
                "env": e.unwrapped.np_random.bit_generator.state,
                "action_space": e.action_space.np_random.bit_generator.state,
            }
        )
    return states


def set_env_random_state(env: Any, states: list[dict[str, Any]]) -> None:
    """Restore states taken by :func:`env_random_state`."""
    for e, s in zip(_sub_envs(env), states):
        e.unwrapped.np_random.bit_generator.state = s["env"]
        e.action_space.np_random.bit_generator.state = s["action_space"]


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def _snapshot_value(value: Any) -> tuple[str, Any]:
    """``('value', v)``, or for an object holding something unpicklable (an
    explorer with a lambda as ``random_action_func``) ``('attrs', d)`` with
    the picklable part of its ``__dict__``, restored onto the live object."""
    if _picklable(value):
        return ("value", value)
    if hasattr(value, "__dict__"):
        return ("attrs", {k: v for k, v in vars(value).items() if _picklable(v)})
    raise TypeError(
        f"save_snapshot: cannot pickle agent attribute of type {type(value)}"
    )


def save_snapshot(
    dirname: str,
    agent: Any,
    *,
    step: int,
    episode: int,
    env: Any = None,
    eval_env: Any = None,
    evaluator: Any = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Write a snapshot of a training run to ``dirname`` (replacing it)."""
    tmp = dirname.rstrip(os.sep) + ".tmp"
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    agent.save(os.path.join(tmp, "agent"))
    buffer = getattr(agent, "replay_buffer", None)
    if buffer is not None:
        buffer.save(os.path.join(tmp, "replay_buffer.pkl"))
    state = {
        "format": _FORMAT,
        "step": step,
        "episode": episode,
        "rng": get_random_state(),
        "agent_attributes": {
            name: _snapshot_value(getattr(agent, name))
            for name in getattr(agent, "snapshot_attributes", ())
        },
        "env_rng": env_random_state(env),
        "eval_env_rng": env_random_state(eval_env) if eval_env is not env else None,
        "evaluator": evaluator.state_dict() if evaluator is not None else None,
        "extra": extra or {},
    }
    with atomic_write(os.path.join(tmp, "state.pkl"), "wb") as f:
        pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)
    # Swap directories: the old snapshot survives until the new one is whole.
    old = dirname.rstrip(os.sep) + ".old"
    if os.path.exists(dirname):
        if os.path.exists(old):
            shutil.rmtree(old)
        os.replace(dirname, old)
    os.replace(tmp, dirname)
    if os.path.exists(old):
        shutil.rmtree(old)


def load_snapshot(
    dirname: str,
    agent: Any,
    *,
    env: Any = None,
    eval_env: Any = None,
    evaluator: Any = None,
) -> dict[str, Any]:
    """Restore a snapshot written by :func:`save_snapshot`.

    Returns:
        Dict with ``step``, ``episode`` and ``extra``.
    """
    path = os.path.join(dirname, "state.pkl")
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"load_snapshot: {dirname} has no state.pkl; not a snapshot"
        )
    with open(path, "rb") as f:
        state = pickle.load(f)
    if not (isinstance(state, dict) and state.get("format") == _FORMAT):
        raise ValueError(f"load_snapshot: {path} is not a kusari_rl snapshot")
    agent.load(os.path.join(dirname, "agent"))
    buffer = getattr(agent, "replay_buffer", None)
    if buffer is not None:
        buffer.load(os.path.join(dirname, "replay_buffer.pkl"))
    for name, (kind, value) in state["agent_attributes"].items():
        if kind == "value":
            setattr(agent, name, value)
        else:  # the picklable part of an object's __dict__
            target = getattr(agent, name)
            for key, item in value.items():
                setattr(target, key, item)
    set_random_state(state["rng"])
    set_env_random_state(env, state["env_rng"])
    if state["eval_env_rng"] is not None:
        set_env_random_state(eval_env, state["eval_env_rng"])
    if evaluator is not None and state["evaluator"] is not None:
        evaluator.load_state_dict(state["evaluator"])
    return {"step": state["step"], "episode": state["episode"], "extra": state["extra"]}
