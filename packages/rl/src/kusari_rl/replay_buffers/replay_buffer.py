"""Uniform replay buffer with n-step experiences."""

from __future__ import annotations

import collections
import pickle
from typing import Any

import numpy as np

from kusari.utils.atomic import atomic_write
from kusari_rl.misc.collections import RandomAccessQueue
from kusari_rl.replay_buffer import AbstractReplayBuffer
from kusari_rl.replay_buffers._columns import ColumnStore, SampledExperiences

__all__ = ["ReplayBuffer"]

_FORMAT = "kusari_rl.ReplayBuffer/1"


class ReplayBuffer(AbstractReplayBuffer):
    """Experience replay with uniform sampling.

    Each stored experience is a list of up to ``num_steps`` consecutive
    transitions of one environment, so sampling it gives an n-step return
    directly. Episodes of several environments (``env_id``) interleave safely.

    The buffer also keeps array copies of the experiences' fields (while
    they are NumPy arrays and scalars of fixed types and their total stays
    modest), from which a sampled minibatch is gathered without visiting
    each transition: by :func:`~kusari_rl.replay_buffer.batch_experiences`
    for one-step experiences, by the DQN family's update (through
    ``ColumnStore.nstep_batch``) for n-step ones.

    Args:
        capacity: Maximum number of experiences (None: unbounded).
        num_steps: n of the n-step returns.

    Example:
        >>> rb = ReplayBuffer(capacity=100, num_steps=2)
        >>> for t in range(3):
        ...     rb.append(state=t, action=0, reward=1.0, next_state=t + 1)
        >>> len(rb), [tr['state'] for tr in rb.memory[0]]
        (2, [0, 1])
    """

    def __init__(self, capacity: int | None = None, num_steps: int = 1) -> None:
        if num_steps < 1:
            raise ValueError(f"ReplayBuffer: num_steps must be >= 1, got {num_steps}")
        if capacity is not None and capacity < 1:
            raise ValueError(
                f"ReplayBuffer: capacity must be >= 1 or None, got {capacity}"
            )
        self.capacity = capacity
        self.num_steps = num_steps
        self.memory = RandomAccessQueue(maxlen=capacity)
        self.last_n_transitions: dict[int, collections.deque] = {}
        self._columns = self._new_columns()

    def _new_columns(self) -> ColumnStore | None:
        # Only the plain buffer: subclasses store and sample their own way.
        if type(self)._push is not ReplayBuffer._push:
            return None
        return ColumnStore(self.capacity, self.num_steps)

    def _rebuild_columns(self) -> None:
        self._columns = self._new_columns()
        if self._columns is None or not isinstance(self.memory, RandomAccessQueue):
            return
        for slot, experience in enumerate(self.memory._data):
            if experience:
                self._columns.write(slot, experience)

    def _window(self, env_id: int) -> collections.deque:
        window = self.last_n_transitions.get(env_id)
        if window is None:
            window = collections.deque(maxlen=self.num_steps)
            self.last_n_transitions[env_id] = window
        return window

    def _push(self, experience: list[dict[str, Any]]) -> None:
        if self._columns is not None:
            self._columns.write(self.memory.next_slot(), experience)
        self.memory.append(experience)

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
        window = self._window(env_id)
        window.append(
            dict(
                state=state,
                action=action,
                reward=reward,
                next_state=next_state,
                next_action=next_action,
                is_state_terminal=is_state_terminal,
                **kwargs,
            )
        )
        if is_state_terminal:
            # The episode is over: flush every shorter tail window too.
            while window:
                self._push(list(window))
                window.popleft()
        elif len(window) == self.num_steps:
            self._push(list(window))

    def stop_current_episode(self, env_id: int = 0) -> None:
        window = self.last_n_transitions.get(env_id)
        if not window:
            return
        # A full window was already stored when it filled up; a short one
        # (episode shorter than n) was not.
        if len(window) < self.num_steps:
            self._push(list(window))
        window.popleft()
        while window:
            self._push(list(window))
            window.popleft()

    def sample(self, num_experiences: int) -> list[list[dict[str, Any]]]:
        if num_experiences > len(self):
            raise ValueError(
                f"{type(self).__name__}.sample: asked for {num_experiences} "
                f"experiences, only {len(self)} stored"
            )
        columns = self._columns
        if columns is None or columns.broken:
            return self.memory.sample(num_experiences)
        slots = self.memory.sample_slots(num_experiences)
        item = self.memory.slot_item
        sampled = SampledExperiences(item(i) for i in slots)
        sampled.slots = np.asarray(slots, dtype=np.intp)
        sampled.columns = columns
        return sampled

    def __len__(self) -> int:
        return len(self.memory)

    def _state(self) -> dict[str, Any]:
        return {
            "format": _FORMAT,
            "memory": self.memory,
            "last_n_transitions": {
                k: list(v) for k, v in self.last_n_transitions.items()
            },
        }

    def _set_state(self, state: dict[str, Any]) -> None:
        self.memory = state["memory"]
        self.last_n_transitions = {}
        for env_id, items in state["last_n_transitions"].items():
            self._window(env_id).extend(items)
        self._rebuild_columns()

    def __getstate__(self) -> dict[str, Any]:
        # The columns are a cache keyed by object ids: rebuilt, not pickled.
        state = self.__dict__.copy()
        state["_columns"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._rebuild_columns()

    def save(self, filename: str) -> None:
        """Pickle the buffer (including unfinished episodes) atomically."""
        with atomic_write(filename, "wb") as f:
            pickle.dump(self._state(), f, protocol=pickle.HIGHEST_PROTOCOL)

    def load(self, filename: str) -> None:
        """Load a buffer written by :meth:`save` (pickle: trusted files only)."""
        with open(filename, "rb") as f:
            state = pickle.load(f)
        if not (isinstance(state, dict) and state.get("format") == _FORMAT):
            # ChainerRL pickled the bare memory queue.
            if isinstance(state, (list, collections.deque, RandomAccessQueue)):
                self.memory = RandomAccessQueue(state, maxlen=self.capacity)
                self.last_n_transitions = {}
                self._rebuild_columns()
                return
            raise ValueError(
                f"{type(self).__name__}.load: {filename} is not a replay buffer"
            )
        self._set_state(state)
