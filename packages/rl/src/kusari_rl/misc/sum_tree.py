"""Array-based sum/min trees for prioritized replay.

Leaves ``[cap, 2 cap)`` hold priorities; node ``i`` holds the sum (or min) of
nodes ``2i`` and ``2i+1``. Batched operations walk the levels with NumPy, so
sampling or updating ``k`` leaves costs ``O(k log n)`` in a handful of array
operations instead of ``k log n`` Python steps. Parents are always recomputed
from their children, so no floating-point drift accumulates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SumTree"]


class SumTree:
    """Priorities of ``0 .. capacity-1`` with O(log n) update and sampling.

    The tree doubles its capacity when :meth:`set` is given an index beyond
    it, so an unbounded replay buffer can use it too.

    Example:
        >>> t = SumTree(4)
        >>> t.set(np.array([0, 1, 2]), np.array([1.0, 2.0, 3.0]))
        >>> t.total(), t.min()
        (6.0, 1.0)
        >>> t.find(np.array([0.5, 1.5, 5.9])).tolist()
        [0, 1, 2]
    """

    def __init__(self, capacity: int = 1) -> None:
        if capacity <= 0:
            raise ValueError(f"SumTree: capacity must be positive, got {capacity}")
        self._cap = 1 << max(0, int(capacity - 1).bit_length())
        self._sum = np.zeros(2 * self._cap, dtype=np.float64)
        self._min = np.full(2 * self._cap, np.inf, dtype=np.float64)

    @property
    def capacity(self) -> int:
        return self._cap

    def _grow(self, needed: int) -> None:
        cap = self._cap
        while cap <= needed:
            cap *= 2
        leaves_sum = self._sum[self._cap :].copy()
        leaves_min = self._min[self._cap :].copy()
        old = self._cap
        self._cap = cap
        self._sum = np.zeros(2 * cap, dtype=np.float64)
        self._min = np.full(2 * cap, np.inf, dtype=np.float64)
        idx = np.arange(old)
        self._sum[cap + idx] = leaves_sum
        self._min[cap + idx] = leaves_min
        self._rebuild()

    def _rebuild(self) -> None:
        # One vectorised step per level, bottom-up.
        lo = self._cap // 2
        while lo >= 1:
            nodes = np.arange(lo, 2 * lo)
            self._sum[nodes] = self._sum[2 * nodes] + self._sum[2 * nodes + 1]
            self._min[nodes] = np.minimum(
                self._min[2 * nodes], self._min[2 * nodes + 1]
            )
            lo //= 2

    def set(self, indices: Any, priorities: Any) -> None:
        """Set the priorities of leaves ``indices`` (later duplicates win)."""
        idx = np.asarray(indices, dtype=np.int64).ravel()
        pri = np.asarray(priorities, dtype=np.float64).ravel()
        if idx.size == 0:
            return
        if idx.shape != pri.shape:
            raise ValueError(
                f"SumTree.set: {idx.size} indices but {pri.size} priorities"
            )
        if np.any(pri < 0) or not np.all(np.isfinite(pri)):
            raise ValueError("SumTree.set: priorities must be finite and >= 0")
        top = int(idx.max())
        if top >= self._cap:
            self._grow(top)
        nodes = idx + self._cap
        self._sum[nodes] = pri
        self._min[nodes] = pri
        self._propagate(nodes)

    def clear(self, indices: Any) -> None:
        """Remove leaves ``indices`` (priority 0, excluded from the min)."""
        idx = np.asarray(indices, dtype=np.int64).ravel()
        if idx.size == 0:
            return
        nodes = idx + self._cap
        self._sum[nodes] = 0.0
        self._min[nodes] = np.inf
        self._propagate(nodes)

    def _propagate(self, nodes: np.ndarray) -> None:
        s, m = self._sum, self._min
        nodes = np.unique(nodes // 2)
        while nodes[0] >= 1:
            left = 2 * nodes
            s[nodes] = s[left] + s[left + 1]
            m[nodes] = np.minimum(m[left], m[left + 1])
            if nodes[0] == 1:
                break
            nodes = np.unique(nodes // 2)

    def get(self, indices: Any) -> np.ndarray:
        """Priorities of leaves ``indices``."""
        return self._sum[np.asarray(indices, dtype=np.int64) + self._cap]

    def total(self) -> float:
        return float(self._sum[1])

    def min(self) -> float:
        """Smallest priority among set leaves (``inf`` when empty)."""
        return float(self._min[1])

    def find(self, values: Any) -> np.ndarray:
        """Leaf index whose cumulative-priority interval contains each value.

        Args:
            values: Numbers in ``[0, total())``.
        """
        u = np.array(values, dtype=np.float64).ravel()
        node = np.ones(u.shape, dtype=np.int64)
        s = self._sum
        while node[0] < self._cap:
            left = 2 * node
            left_sum = s[left]
            go_right = u >= left_sum
            u = np.where(go_right, u - left_sum, u)
            node = left + go_right
        leaf = node - self._cap
        # Rounding can step onto an empty leaf at the far right; walk back to
        # the last leaf with positive priority.
        bad = s[node] <= 0
        if np.any(bad):
            nonzero = np.flatnonzero(s[self._cap :] > 0)
            pos = np.searchsorted(nonzero, leaf[bad], side="right") - 1
            leaf[bad] = nonzero[np.clip(pos, 0, None)]
        return leaf

    def sample(self, n: int, rng: np.random.Generator | None = None) -> np.ndarray:
        """Stratified sample of ``n`` leaves with probability ∝ priority."""
        total = self.total()
        if total <= 0:
            raise ValueError("SumTree.sample: all priorities are zero")
        r = np.random.random(n) if rng is None else rng.random(n)
        return self.find((np.arange(n) + r) * (total / n))

    def __getstate__(self) -> dict[str, Any]:
        return {
            "cap": self._cap,
            "leaves": self._sum[self._cap :].copy(),
            "mins": self._min[self._cap :].copy(),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._cap = state["cap"]
        self._sum = np.zeros(2 * self._cap, dtype=np.float64)
        self._min = np.full(2 * self._cap, np.inf, dtype=np.float64)
        self._sum[self._cap :] = state["leaves"]
        self._min[self._cap :] = state["mins"]
        self._rebuild()
