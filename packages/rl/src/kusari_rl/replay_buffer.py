"""Replay buffer interfaces, minibatch assembly and the update scheduler.

A stored *experience* is a list of 1..n consecutive transitions (dicts with
``state``, ``action``, ``reward``, ``next_state``, ``next_action``,
``is_state_terminal`` and any extra keys), so that n-step returns need no
second look-up. :func:`batch_experiences` turns a sampled list of them into
arrays.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kusari_rl.misc.batch_states import batch_states as default_batch_states

__all__ = [
    "AbstractEpisodicReplayBuffer",
    "AbstractReplayBuffer",
    "ReplayUpdater",
    "batch_experiences",
]


class AbstractReplayBuffer(metaclass=ABCMeta):
    """Interface of replay buffers."""

    @abstractmethod
    def append(
        self,
        state: Any,
        action: Any,
        reward: float,
        next_state: Any = None,
        next_action: Any = None,
        is_state_terminal: bool = False,
        env_id: int = 0,
        **kwargs: Any,
    ) -> None:
        """Store a transition.

        Args:
            is_state_terminal: True only for a true terminal ``next_state``
                (Gymnasium's ``terminated``). A time-limit cut is *not*
                terminal: call :meth:`stop_current_episode` instead, and the
                stored experiences still bootstrap from ``next_state``.
            env_id: Which of several parallel environments this comes from.
        """

    @abstractmethod
    def sample(self, n: int) -> list[list[dict[str, Any]]]:
        """Sample ``n`` experiences (each a list of consecutive transitions)."""

    @abstractmethod
    def __len__(self) -> int:
        """Number of experiences that can be sampled."""

    @abstractmethod
    def save(self, filename: str) -> None:
        """Write the buffer to ``filename`` (atomically)."""

    @abstractmethod
    def load(self, filename: str) -> None:
        """Read a buffer written by :meth:`save`."""

    @abstractmethod
    def stop_current_episode(self, env_id: int = 0) -> None:
        """End the current episode of ``env_id`` (on termination or truncation)."""


class AbstractEpisodicReplayBuffer(AbstractReplayBuffer):
    """Replay buffer that can also sample whole episodes."""

    @abstractmethod
    def sample_episodes(
        self, n_episodes: int, max_len: int | None = None
    ) -> list[list[dict[str, Any]]]:
        """Sample ``n_episodes`` episodes, each cut to ``max_len`` steps."""

    @property
    @abstractmethod
    def n_episodes(self) -> int:
        """Number of complete episodes stored."""


def batch_experiences(
    experiences: Sequence[Sequence[dict[str, Any]]],
    xp: Any,
    phi: Callable[[Any], Any] | None,
    gamma: float,
    batch_states: Callable[..., Any] = default_batch_states,
) -> dict[str, Any]:
    """Stack sampled experiences into arrays for a minibatch update.

    For an experience of ``k`` transitions the ``reward`` is the discounted
    sum ``sum_i gamma**i r_i``, ``discount`` is ``gamma**k`` (the factor of the
    bootstrapped value), ``next_state`` is the last transition's, and
    ``is_state_terminal`` is 1 if any transition ended in a terminal state.

    Returns:
        Dict with ``state``, ``action``, ``reward``, ``next_state``,
        ``is_state_terminal``, ``discount``, plus ``next_action`` when every
        transition has one and ``weights`` when sampled with priorities.
    """
    first = [e[0] for e in experiences]
    last = [e[-1] for e in experiences]
    lengths = np.fromiter(
        (len(e) for e in experiences), dtype=np.int64, count=len(experiences)
    )
    if np.all(lengths == 1):
        rewards = np.fromiter(
            (t["reward"] for t in first), dtype=np.float32, count=len(first)
        )
        terminal = np.fromiter(
            (t["is_state_terminal"] for t in first), dtype=np.float32, count=len(first)
        )
        discount = np.full(len(first), gamma, dtype=np.float32)
    else:
        rewards = np.asarray(
            [sum(gamma**i * t["reward"] for i, t in enumerate(e)) for e in experiences],
            dtype=np.float32,
        )
        terminal = np.asarray(
            [any(t["is_state_terminal"] for t in e) for e in experiences],
            dtype=np.float32,
        )
        discount = np.power(gamma, lengths).astype(np.float32)
    batch = {
        "state": batch_states([t["state"] for t in first], xp, phi),
        "action": _to_device(np.asarray([t["action"] for t in first]), xp),
        "reward": _to_device(rewards, xp),
        "next_state": batch_states([t["next_state"] for t in last], xp, phi),
        "is_state_terminal": _to_device(terminal, xp),
        "discount": _to_device(discount, xp),
    }
    if all(t.get("next_action") is not None for t in last):
        batch["next_action"] = _to_device(
            np.asarray([t["next_action"] for t in last]), xp
        )
    if "weight" in first[0]:
        batch["weights"] = _to_device(
            np.asarray([t["weight"] for t in first], dtype=np.float32), xp
        )
    return batch


def _to_device(array: np.ndarray, xp: Any) -> Any:
    if xp is np or xp is None:
        return array
    if hasattr(xp, "send"):
        return xp.send(array)
    return xp.asarray(array)


class ReplayUpdater:
    """Calls ``update_func`` with sampled minibatches when it is time to.

    Args:
        replay_buffer: Buffer to sample from.
        update_func: Called with the sampled experiences (or episodes).
        batchsize: Minibatch size (episodes when ``episodic_update``).
        episodic_update: Sample episodes instead of transitions.
        n_times_update: Updates per call that triggers.
        replay_start_size: No update until the buffer holds this many.
        update_interval: Update every this many steps.
        episodic_update_len: Maximum length of a sampled episode.
    """

    def __init__(
        self,
        replay_buffer: AbstractReplayBuffer,
        update_func: Callable[[Any], None],
        batchsize: int,
        episodic_update: bool,
        n_times_update: int,
        replay_start_size: int,
        update_interval: int,
        episodic_update_len: int | None = None,
    ) -> None:
        if batchsize <= 0 or n_times_update <= 0 or update_interval <= 0:
            raise ValueError(
                "ReplayUpdater: batchsize, n_times_update and update_interval must "
                f"be positive, got {batchsize}, {n_times_update}, {update_interval}"
            )
        if replay_start_size < batchsize and not episodic_update:
            raise ValueError(
                f"ReplayUpdater: replay_start_size ({replay_start_size}) must be at "
                f"least the minibatch size ({batchsize})"
            )
        self.replay_buffer = replay_buffer
        self.update_func = update_func
        self.batchsize = batchsize
        self.episodic_update = episodic_update
        self.episodic_update_len = episodic_update_len
        self.n_times_update = n_times_update
        self.replay_start_size = replay_start_size
        self.update_interval = update_interval

    def update_if_necessary(self, iteration: int) -> bool:
        """Update if ``iteration`` is an update step; return whether it did."""
        if len(self.replay_buffer) < self.replay_start_size:
            return False
        if self.episodic_update:
            buf = self.replay_buffer
            if not isinstance(buf, AbstractEpisodicReplayBuffer):
                raise TypeError(
                    "ReplayUpdater: episodic_update needs an episodic replay buffer, "
                    f"got {type(buf).__name__}"
                )
            if buf.n_episodes < self.batchsize:
                return False
        if iteration % self.update_interval != 0:
            return False
        for _ in range(self.n_times_update):
            if self.episodic_update:
                assert isinstance(self.replay_buffer, AbstractEpisodicReplayBuffer)
                episodes = self.replay_buffer.sample_episodes(
                    self.batchsize, self.episodic_update_len
                )
                self.update_func(episodes)
            else:
                self.update_func(self.replay_buffer.sample(self.batchsize))
        return True
