"""Early, readable errors for environments an agent cannot handle."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

__all__ = ["check_agent_env", "check_env_spaces"]

_ACTION_KINDS = ("discrete", "continuous", "any")


def check_env_spaces(
    env_or_observation_space: Any,
    action_space: Any = None,
    *,
    agent: str = "agent",
    action: str = "any",
    observation: str = "array",
) -> None:
    """Check that an environment's spaces suit an agent; raise if not.

    Args:
        env_or_observation_space: A Gymnasium env (single or vector) or its
            observation space.
        action_space: The action space (taken from the env when omitted).
        agent: Agent name used in the message, e.g. ``'DQN'``.
        action: ``'discrete'`` (Q-learning agents), ``'continuous'`` (DDPG,
            SAC, ...) or ``'any'``.
        observation: ``'array'`` (reject Dict/Tuple observations) or
            ``'any'`` (the agent's ``phi`` turns them into arrays).

    Raises:
        ValueError: with the offending space and how to fix it.

    Example:
        >>> check_env_spaces(gym.make('CartPole-v1'), agent='DQN', action='discrete')
    """
    if action not in _ACTION_KINDS:
        raise ValueError(f"check_env_spaces: action must be one of {_ACTION_KINDS}")
    if isinstance(env_or_observation_space, gym.Space):
        obs_space = env_or_observation_space
    else:
        env = env_or_observation_space
        # Vector envs expose the per-env spaces as single_*.
        obs_space = getattr(env, "single_observation_space", env.observation_space)
        if action_space is None:
            action_space = getattr(env, "single_action_space", env.action_space)
    if observation == "array" and isinstance(
        obs_space, (gym.spaces.Dict, gym.spaces.Tuple)
    ):
        raise ValueError(
            f"{agent}: observation space {obs_space} is a {type(obs_space).__name__}"
            " space; agents take array observations. Wrap the env, e.g. with "
            "gymnasium.wrappers.FlattenObservation, or give the agent a `phi` "
            "that turns the observation into an array"
        )
    if action_space is None:
        return
    if action == "discrete" and not isinstance(action_space, gym.spaces.Discrete):
        fix = (
            " Use a continuous-action agent (DDPG, TD3, SAC, PPO) instead, or "
            "discretise the actions with a wrapper"
            if isinstance(action_space, gym.spaces.Box)
            else ""
        )
        raise ValueError(
            f"{agent} needs a Discrete action space, got {action_space}.{fix}"
        )
    if action == "continuous" and not isinstance(action_space, gym.spaces.Box):
        raise ValueError(
            f"{agent} needs a continuous (Box) action space, got {action_space}. "
            "Use a discrete-action agent (DQN, categorical DQN, A2C, PPO) instead"
        )


def check_agent_env(agent: Any, env: Any) -> None:
    """Check ``env`` against what ``agent`` declares it supports.

    Agents declare ``supported_action_space`` (``'discrete'``,
    ``'continuous'`` or ``'any'``, the default) and
    ``supported_observation_space`` (``'array'``, the default, or ``'any'``);
    the training and evaluation loops call this before the first step.
    """
    check_env_spaces(
        env,
        agent=type(agent).__name__,
        action=getattr(agent, "supported_action_space", "any"),
        observation=getattr(agent, "supported_observation_space", "array"),
    )
