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
from kusari_rl.misc.batch_states import is_identity, stack_arrays

__all__ = [
    "AbstractEpisodicReplayBuffer",
    "AbstractReplayBuffer",
    "ReplayUpdater",
    "batch_experiences",
    "batch_recurrent_experiences",
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


def _sender(xp: Any) -> Callable[[Any], Any]:
    """The function moving host arrays to ``xp`` (a module or a Device)."""
    if xp is np or xp is None:
        return _identity
    if hasattr(xp, "send"):  # a kusari Device
        if getattr(xp, "xp", None) is np:
            return _identity
        return xp.send
    return xp.asarray


def _identity(x: Any) -> Any:
    return x


def _split_rows(batch: Any, bounds: Sequence[int]) -> list[Any]:
    """Slice a batch (or tuple of batches) into consecutive row ranges (views)."""
    if isinstance(batch, tuple):
        parts = [_split_rows(b, bounds) for b in batch]
        return [tuple(p[i] for p in parts) for i in range(len(bounds) - 1)]
    return [batch[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]


def _states_and_next_states(
    first: list[dict[str, Any]],
    last: list[dict[str, Any]],
    xp: Any,
    phi: Callable[[Any], Any] | None,
    batch_states: Callable[..., Any],
) -> tuple[Any, Any]:
    # One batch_states call for both: a single stacking and a single device
    # transfer instead of two; the halves are views of it.
    n = len(first)
    both = batch_states(
        [t["state"] for t in first] + [t["next_state"] for t in last], xp, phi
    )
    state, next_state = _split_rows(both, (0, n, 2 * n))
    return state, next_state


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

    Args:
        experiences: Sampled experiences, each a list of 1..n transitions.
        xp: ``numpy``, ``cupy`` or a :class:`kusari.backend.Device`.
        phi: Feature extractor applied to the states.
        gamma: Discount factor.
        batch_states: Function making a batch of states; it is called once
            with the states followed by the next states.

    Returns:
        Dict with ``state``, ``action``, ``reward``, ``next_state``,
        ``is_state_terminal``, ``discount``, plus ``next_action`` when every
        transition has one and ``weights`` when sampled with priorities.
    """
    n = len(experiences)
    if n == 0:
        raise ValueError("batch_experiences: expected at least one experience, got 0")
    columns = getattr(experiences, "columns", None)
    if (
        columns is not None
        and batch_states is default_batch_states
        and is_identity(phi)
    ):
        batch = _batch_from_columns(experiences, columns, xp, gamma)
        if batch is not None:
            return batch
    first = [e[0] for e in experiences]
    lengths = list(map(len, experiences))
    single_step = max(lengths) == 1
    last = first if single_step else [e[-1] for e in experiences]
    weighted = "weight" in first[0]
    # The float32 columns go to the device together, as one array.
    scalars = np.empty((4 if weighted else 3, n), dtype=np.float32)
    if single_step:
        scalars[0] = [t["reward"] for t in first]
        scalars[1] = [t["is_state_terminal"] for t in first]
        scalars[2] = gamma
    else:
        flat = [t for e in experiences for t in e]
        lengths_a = np.asarray(lengths, dtype=np.int64)
        starts = np.cumsum(lengths_a) - lengths_a
        # Position of every transition inside its experience: gamma**pos
        # weights its reward in the n-step return.
        pos = np.arange(len(flat)) - np.repeat(starts, lengths_a)
        rewards = np.array([t["reward"] for t in flat], dtype=np.float64)
        scalars[0] = np.add.reduceat(rewards * np.power(gamma, pos), starts)
        terminal = np.array([t["is_state_terminal"] for t in flat], dtype=bool)
        scalars[1] = np.logical_or.reduceat(terminal, starts)
        scalars[2] = np.power(gamma, lengths_a.astype(np.float64))
    if weighted:
        scalars[3] = [t["weight"] for t in first]
    send = _sender(xp)
    scalars = send(scalars)
    state, next_state = _states_and_next_states(first, last, xp, phi, batch_states)
    batch = {
        "state": state,
        "action": send(stack_arrays([t["action"] for t in first])),
        "reward": scalars[0],
        "next_state": next_state,
        "is_state_terminal": scalars[1],
        "discount": scalars[2],
    }
    next_actions = [t.get("next_action") for t in last]
    if all(a is not None for a in next_actions):
        batch["next_action"] = send(stack_arrays(next_actions))
    if weighted:
        batch["weights"] = scalars[3]
    return batch


def _batch_from_columns(
    experiences: Any, columns: Any, xp: Any, gamma: float
) -> dict[str, Any] | None:
    """:func:`batch_experiences` from a buffer's column copies (same arrays)."""
    host = columns.gather(experiences, experiences.slots)
    if host is None:
        return None
    n = len(experiences)
    send = _sender(xp)
    scalars = np.empty((3, n), dtype=np.float32)
    scalars[0] = host["reward"]
    scalars[1] = host["is_state_terminal"]
    scalars[2] = gamma
    scalars = send(scalars)
    both = send(np.concatenate([host["state"], host["next_state"]]))
    batch = {
        "state": both[:n],
        "action": send(host["action"]),
        "reward": scalars[0],
        "next_state": both[n:],
        "is_state_terminal": scalars[1],
        "discount": scalars[2],
    }
    if "next_action" in host:
        batch["next_action"] = send(host["next_action"])
    return batch


def batch_recurrent_experiences(
    experiences: Sequence[Sequence[dict[str, Any]]],
    model: Any,
    xp: Any,
    phi: Callable[[Any], Any] | None,
    gamma: float,
    batch_states: Callable[..., Any] = default_batch_states,
) -> dict[str, Any]:
    """Batch sampled sequences (episode pieces) for a recurrent update.

    Args:
        experiences: Sequences of consecutive one-step transitions; each
            transition may carry ``recurrent_state`` / ``next_recurrent_state``
            (the model's state before ``state`` / ``next_state``), as stored by
            the recurrent agents.
        model: A :class:`~kusari_rl.links.StatelessRecurrent` that batches the
            stored states of the first transition of every sequence.
        xp, phi, gamma, batch_states: As for :func:`batch_experiences`.

    Returns:
        Dict with ``state`` and ``next_state`` as lists of per-sequence
        batches (the input of ``model.n_step_forward``), the per-transition
        arrays ``action``, ``reward``, ``is_state_terminal``, ``discount``
        flattened in sequence order (the order of ``output_mode='concat'``),
        ``recurrent_state`` and ``next_recurrent_state``, and ``next_action``
        when every transition has one.
    """
    if not experiences or any(len(e) == 0 for e in experiences):
        raise ValueError(
            "batch_recurrent_experiences: expected non-empty sequences, got "
            f"lengths {[len(e) for e in experiences]}"
        )
    flat = [t for e in experiences for t in e]
    bounds = [0, *np.cumsum([len(e) for e in experiences]).tolist()]
    send = _sender(xp)
    scalars = np.empty((3, len(flat)), dtype=np.float32)
    scalars[0] = [t["reward"] for t in flat]
    scalars[1] = [t["is_state_terminal"] for t in flat]
    scalars[2] = gamma
    scalars = send(scalars)
    state, next_state = _states_and_next_states(flat, flat, xp, phi, batch_states)
    batch = {
        "state": _split_rows(state, bounds),
        "action": send(stack_arrays([t["action"] for t in flat])),
        "reward": scalars[0],
        "next_state": _split_rows(next_state, bounds),
        "is_state_terminal": scalars[1],
        "discount": scalars[2],
        "recurrent_state": model.concatenate_recurrent_states(
            [e[0].get("recurrent_state") for e in experiences]
        ),
        "next_recurrent_state": model.concatenate_recurrent_states(
            [e[0].get("next_recurrent_state") for e in experiences]
        ),
    }
    next_actions = [t.get("next_action") for t in flat]
    if all(a is not None for a in next_actions):
        batch["next_action"] = send(stack_arrays(next_actions))
    return batch


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
