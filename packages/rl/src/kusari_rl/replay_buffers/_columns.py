"""Column copies of a replay buffer's one-step transitions, for fast batching.

:class:`~kusari_rl.replay_buffers.ReplayBuffer` keeps ChainerRL's storage
(one dict per transition) and, next to it, the fields that
:func:`~kusari_rl.replay_buffer.batch_experiences` needs as arrays indexed by
the memory's slot. A sampled minibatch is then gathered with a few fancy
indexing operations instead of visiting a few hundred dicts and arrays.

The columns are only a cache: every row also records ``id()`` of the dict it
was copied from, and a minibatch is served from the columns only if its
dicts are exactly those (otherwise, or once a transition does not fit the
columns' types, the ordinary path runs and gives the same arrays).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["ColumnStore", "SampledExperiences"]

_SCALAR_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)
# Python ints and floats batch (np.asarray) like NumPy's 64-bit scalars, so a
# column of either accepts both (explorers mix them with argmax results).
_SAME_BATCH_TYPE: dict[type, type] = {int: np.int64, float: np.float64}
# The columns copy the data: past this size they are not worth the memory.
MAX_BYTES = 512 * 2**20


class SampledExperiences(list):
    """The list ``ReplayBuffer.sample`` returns, plus where its items live."""

    slots: np.ndarray
    columns: ColumnStore


class _Kind:
    """What one column accepts: the type, dtype and shape of its first value."""

    def __init__(self, value: Any) -> None:
        self.type: type = _SAME_BATCH_TYPE.get(type(value), type(value))
        arr = np.asarray(value)
        self.dtype = arr.dtype
        self.shape = arr.shape
        self.ok = (
            (self.type is np.ndarray or isinstance(value, _SCALAR_TYPES))
            and not self.dtype.hasobject
            and self.dtype.kind in "biuf"
        )

    def accepts(self, value: Any) -> bool:
        kind: type = type(value)
        if kind is not self.type and _SAME_BATCH_TYPE.get(kind) is not self.type:
            return False
        if self.type is np.ndarray:
            return bool(value.dtype == self.dtype and value.shape == self.shape)
        return True


class ColumnStore:
    """Arrays of state, action, reward, next state, terminal flag per slot.

    With ``num_steps`` > 1 a slot holds an n-step experience: the first
    transition's state and action, the last one's next state (and next
    action), the rewards of its 1..n transitions, their number and whether
    any ended in a terminal state; :meth:`nstep_batch` turns a sample into
    the minibatch :func:`~kusari_rl.replay_buffer.batch_experiences` gives.

    Args:
        capacity: Number of slots (None: grows as needed).
        num_steps: Transitions per experience at most.
    """

    def __init__(self, capacity: int | None, num_steps: int = 1) -> None:
        self.capacity = capacity
        self.num_steps = num_steps
        self.broken = False
        self.cols: dict[str, np.ndarray] = {}
        self.kinds: dict[str, _Kind] = {}

    def _row_bytes(self) -> int:
        state, action = self.kinds["state"], self.kinds["action"]
        n_state = int(np.prod(state.shape)) * state.dtype.itemsize
        n_action = int(np.prod(action.shape)) * action.dtype.itemsize
        return 2 * n_state + 2 * n_action + 1 + 4 + 4 + 8 + 16 * self.num_steps

    def _allocate(self, rows: int) -> None:
        state, action = self.kinds["state"], self.kinds["action"]
        self.cols = {
            "state": np.empty((rows, *state.shape), state.dtype),
            "next_state": np.empty((rows, *state.shape), state.dtype),
            "action": np.empty((rows, *action.shape), action.dtype),
            "next_action": np.empty((rows, *action.shape), action.dtype),
            "has_next_action": np.zeros(rows, bool),
            "reward": np.empty(rows, np.float32),
            "is_state_terminal": np.empty(rows, np.float32),
            "id": np.zeros(rows, np.uint64),
        }
        if self.num_steps > 1:
            self.cols["rewards"] = np.zeros((rows, self.num_steps), np.float64)
            self.cols["length"] = np.zeros(rows, np.int64)

    def _grow(self, slot: int) -> bool:
        rows = len(self.cols["id"])
        new_rows = max(slot + 1, 2 * rows)
        if self.capacity is not None:
            new_rows = min(new_rows, self.capacity)
        if new_rows * self._row_bytes() > MAX_BYTES:
            self._give_up()
            return False
        for name, col in self.cols.items():
            grown = np.zeros((new_rows, *col.shape[1:]), col.dtype)
            grown[:rows] = col
            self.cols[name] = grown
        return True

    def write(self, slot: int, experience: Sequence[dict[str, Any]]) -> None:
        """Copy ``experience`` (1..num_steps transitions) into row ``slot``
        (or give up on columns)."""
        if self.broken:
            return
        t = experience[0]
        last = experience[-1]
        if not self.kinds:
            self.kinds = {"state": _Kind(t["state"]), "action": _Kind(t["action"])}
            if (
                not all(k.ok for k in self.kinds.values())
                or self.kinds["state"].type is not np.ndarray
            ):
                self._give_up()
                return
            rows = min(self.capacity or 1024, 1024)
            if rows * self._row_bytes() > MAX_BYTES:
                self._give_up()
                return
            self._allocate(rows)
        state, action = self.kinds["state"], self.kinds["action"]
        next_action = last.get("next_action")
        if not (
            len(experience) <= self.num_steps
            and state.accepts(t["state"])
            and state.accepts(last["next_state"])
            and action.accepts(t["action"])
            and (next_action is None or action.accepts(next_action))
            and all(
                isinstance(x["reward"], _SCALAR_TYPES)
                and isinstance(x["is_state_terminal"], _SCALAR_TYPES)
                for x in experience
            )
        ):
            self._give_up()
            return
        if slot >= len(self.cols["id"]) and not self._grow(slot):
            return
        c = self.cols
        c["state"][slot] = t["state"]
        c["next_state"][slot] = last["next_state"]
        c["action"][slot] = t["action"]
        c["has_next_action"][slot] = next_action is not None
        if next_action is not None:
            c["next_action"][slot] = next_action
        c["reward"][slot] = t["reward"]
        c["is_state_terminal"][slot] = any(x["is_state_terminal"] for x in experience)
        if self.num_steps > 1:
            rewards = c["rewards"][slot]
            rewards[:] = 0.0
            rewards[: len(experience)] = [x["reward"] for x in experience]
            c["length"][slot] = len(experience)
            # An n-step row stands for the experience list itself.
            c["id"][slot] = id(experience)
        else:
            c["id"][slot] = id(t)

    def _give_up(self) -> None:
        self.broken = True
        self.cols = {}

    def gather(
        self, experiences: Sequence[Sequence[dict[str, Any]]], slots: np.ndarray
    ) -> dict[str, np.ndarray] | None:
        """The host arrays of a sampled minibatch, or None if the columns
        cannot vouch for it (then batch it the ordinary way)."""
        if self.broken or not self.cols or self.num_steps > 1:
            # n-step rows need gamma to become a minibatch: nstep_batch.
            return None
        return self._gather(experiences, slots)

    def _gather(
        self, experiences: Sequence[Sequence[dict[str, Any]]], slots: np.ndarray
    ) -> dict[str, np.ndarray] | None:
        first = [e[0] for e in experiences]
        if "weight" in first[0]:
            return None
        keys = first if self.num_steps == 1 else experiences
        ids = np.fromiter(map(id, keys), dtype=np.uint64, count=len(keys))
        c = self.cols
        if not np.array_equal(c["id"][slots], ids):
            return None
        out = {
            "state": c["state"][slots],
            "next_state": c["next_state"][slots],
            "action": c["action"][slots],
            "reward": c["reward"][slots],
            "is_state_terminal": c["is_state_terminal"][slots],
        }
        if c["has_next_action"][slots].all():
            out["next_action"] = c["next_action"][slots]
        if self.num_steps > 1:
            out["rewards"] = c["rewards"][slots]
            out["length"] = c["length"][slots]
        return out

    def nstep_batch(
        self, experiences: Sequence[Sequence[dict[str, Any]]], gamma: float
    ) -> dict[str, np.ndarray] | None:
        """The host minibatch of sampled n-step experiences, or None when
        the columns cannot vouch for them (then use ``batch_experiences``).

        The same arrays as ``batch_experiences`` computes from the
        transitions: the reward is ``sum_i gamma**i r_i`` summed in float64
        in transition order, then stored as float32; ``discount`` is
        ``gamma**k`` for an experience of ``k`` transitions.
        """
        if self.broken or not self.cols or self.num_steps == 1:
            return None
        slots = getattr(experiences, "slots", None)
        if slots is None:
            return None
        host = self._gather(experiences, slots)
        if host is None:
            return None
        n = len(experiences)
        powers = np.power(gamma, np.arange(self.num_steps))
        rewards = host.pop("rewards")
        total = rewards[:, 0] * powers[0]
        for i in range(1, self.num_steps):
            total = total + rewards[:, i] * powers[i]
        scalars = np.empty((3, n), dtype=np.float32)
        scalars[0] = total
        scalars[1] = host["is_state_terminal"]
        scalars[2] = np.power(gamma, host.pop("length").astype(np.float64))
        both = np.concatenate([host["state"], host["next_state"]])
        batch = {
            "state": both[:n],
            "action": host["action"],
            "reward": scalars[0],
            "next_state": both[n:],
            "is_state_terminal": scalars[1],
            "discount": scalars[2],
        }
        if "next_action" in host:
            batch["next_action"] = host["next_action"]
        return batch
