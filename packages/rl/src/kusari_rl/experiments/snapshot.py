"""Snapshots for resuming a training run exactly where it stopped.

A snapshot directory holds ``agent/`` (``agent.save``), ``replay_buffer.pkl``
(when the agent has a ``replay_buffer``) and ``state.pkl``: the step and
episode counters, the agent's ``snapshot_attributes`` (step counters,
explorer, statistics), the global Python/NumPy RNG states, the RNG states of
the training and evaluation envs and the evaluator's state. Snapshots are
taken at episode boundaries (before the env is reset), so restoring the
env's RNG makes the next ``reset()`` return the same observation.

The vector-env loop snapshots in the middle of its sub-envs' episodes, so it
also keeps each sub-env's own state with :func:`vector_env_state`: the
picklable attributes of every layer of a ``SyncVectorEnv`` sub-env (the
unwrapped env's physics state and RNG, ``TimeLimit``'s step count, ...).
Restored with :func:`set_vector_env_state`, the continuation is the
uninterrupted run. ``AsyncVectorEnv`` sub-envs live in other processes and
cannot be captured; :func:`vector_env_state` returns ``None`` for them.

The directory is written next to its final place and renamed into it, so an
interrupted save never leaves a half-written snapshot. ``state.pkl`` and the
replay buffer are pickles: load only snapshots you wrote.
"""

from __future__ import annotations

import logging
import os
import pickle
import shutil
import types
from typing import Any

import gymnasium as gym
import numpy as np

from kusari.utils.atomic import atomic_write
from kusari_rl.misc.random_seed import get_random_state, set_random_state

__all__ = [
    "env_random_state",
    "load_snapshot",
    "save_snapshot",
    "set_env_random_state",
    "set_vector_env_state",
    "vector_env_state",
]

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


# Layer attributes that are links or configuration, not episode state. The
# spaces' RNGs are restored in place (an explorer may hold a bound
# ``action_space.sample``), the rest is fixed at construction.
_STRUCTURAL = frozenset(
    {
        "env",
        "action_space",
        "observation_space",
        "_action_space",
        "_observation_space",
        "single_action_space",
        "single_observation_space",
        "spec",
        "_cached_spec",
        "metadata",
        "_metadata",
        "render_mode",
    }
)
_CONFIG_TYPES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.LambdaType,
    type,
)


def _env_layers(env: Any) -> list[Any]:
    """The wrapper chain of ``env``, outermost first, unwrapped env last."""
    layers = [env]
    while isinstance(env, gym.Wrapper):
        env = env.env
        layers.append(env)
    return layers


def _layer_state(layer: Any, skipped: list[str]) -> dict[str, Any]:
    state = {}
    for key, value in vars(layer).items():
        if key in _STRUCTURAL or isinstance(value, _CONFIG_TYPES):
            continue
        if _picklable(value):
            state[key] = value
        else:
            skipped.append(f"{type(layer).__name__}.{key}")
    return state


def vector_env_state(env: Any) -> dict[str, Any] | None:
    """Everything a ``SyncVectorEnv`` needs to continue mid-episode.

    Returns:
        A picklable dict (sub-env layer attributes, space RNGs, pending
        autoresets), or ``None`` when the sub-envs are out of reach
        (``AsyncVectorEnv``). ``'skipped'`` names the attributes that could
        not be pickled (a resume without them may not be exact).
    """
    if not hasattr(env, "envs"):
        return None
    skipped: list[str] = []
    sub_envs = []
    for e in env.envs:
        sub_envs.append(
            {
                "types": [type(layer).__name__ for layer in _env_layers(e)],
                "layers": [_layer_state(layer, skipped) for layer in _env_layers(e)],
            }
        )
    spaces = {}
    for name in ("action_space", "single_action_space"):
        space = getattr(env, name, None)
        if space is not None:
            spaces[name] = space.np_random.bit_generator.state
    autoreset = getattr(env, "_autoreset_envs", None)
    return {
        "sub_envs": sub_envs,
        "rng": env_random_state(env),
        "spaces": spaces,
        "autoreset": None if autoreset is None else np.array(autoreset, copy=True),
        "skipped": sorted(set(skipped)),
    }


def set_vector_env_state(env: Any, state: dict[str, Any]) -> None:
    """Restore a state taken by :func:`vector_env_state` into ``env``.

    Raises:
        ValueError: ``env`` has a different number of sub-envs or different
            wrapper chains than the env the state was taken from.
    """
    sub_envs = getattr(env, "envs", None)
    if sub_envs is None or len(sub_envs) != len(state["sub_envs"]):
        got = "no sub-envs" if sub_envs is None else f"{len(sub_envs)} sub-envs"
        raise ValueError(
            f"set_vector_env_state: the snapshot holds {len(state['sub_envs'])} "
            f"sub-envs of a SyncVectorEnv, the env has {got}"
        )
    for i, (e, saved) in enumerate(zip(sub_envs, state["sub_envs"])):
        layers = _env_layers(e)
        types_now = [type(layer).__name__ for layer in layers]
        if types_now != saved["types"]:
            raise ValueError(
                f"set_vector_env_state: sub-env {i} is {types_now}, the snapshot "
                f"was taken from {saved['types']}"
            )
        for layer, attrs in zip(layers, saved["layers"]):
            vars(layer).update(attrs)
    set_env_random_state(env, state["rng"])
    for name, rng_state in state["spaces"].items():
        getattr(env, name).np_random.bit_generator.state = rng_state
    if state["autoreset"] is not None and hasattr(env, "_autoreset_envs"):
        env._autoreset_envs = np.array(state["autoreset"], copy=True)
    if state["skipped"]:
        logging.getLogger(__name__).warning(
            "set_vector_env_state: %s could not be saved; the resumed run may "
            "differ from the uninterrupted one",
            ", ".join(state["skipped"]),
        )


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
