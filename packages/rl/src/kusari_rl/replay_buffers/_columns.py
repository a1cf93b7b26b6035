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

    Args:
        capacity: Number of slots (None: grows as needed).
    """

    def __init__(self, capacity: int | None) -> None:
        self.capacity = capacity
        self.broken = False
        self.cols: dict[str, np.ndarray] = {}
        self.kinds: dict[str, _Kind] = {}

    def _row_bytes(self) -> int:
        state, action = self.kinds["state"], self.kinds["action"]
        n_state = int(np.prod(state.shape)) * state.dtype.itemsize
        n_action = int(np.prod(action.shape)) * action.dtype.itemsize
        return 2 * n_state + 2 * n_action + 1 + 4 + 4 + 8

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

    def write(self, slot: int, t: dict[str, Any]) -> None:
        """Copy transition ``t`` into row ``slot`` (or give up on columns)."""
        if self.broken:
            return
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
        next_action = t.get("next_action")
        if not (
            state.accepts(t["state"])
            and state.accepts(t["next_state"])
            and action.accepts(t["action"])
            and (next_action is None or action.accepts(next_action))
            and isinstance(t["reward"], _SCALAR_TYPES)
            and isinstance(t["is_state_terminal"], _SCALAR_TYPES)
        ):
            self._give_up()
            return
        if slot >= len(self.cols["id"]) and not self._grow(slot):
            return
        c = self.cols
        c["state"][slot] = t["state"]
        c["next_state"][slot] = t["next_state"]
        c["action"][slot] = t["action"]
        c["has_next_action"][slot] = next_action is not None
        if next_action is not None:
            c["next_action"][slot] = next_action
        c["reward"][slot] = t["reward"]
        c["is_state_terminal"][slot] = t["is_state_terminal"]
        c["id"][slot] = id(t)

    def _give_up(self) -> None:
        self.broken = True
        self.cols = {}

    def gather(
        self, experiences: Sequence[Sequence[dict[str, Any]]], slots: np.ndarray
    ) -> dict[str, np.ndarray] | None:
        """The host arrays of a sampled minibatch, or None if the columns
        cannot vouch for it (then batch it the ordinary way)."""
        if self.broken or not self.cols:
            return None
        first = [e[0] for e in experiences]
        if "weight" in first[0]:
            return None
        ids = np.fromiter(map(id, first), dtype=np.uint64, count=len(first))
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
        return out
