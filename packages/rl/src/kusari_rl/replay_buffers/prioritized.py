"""Prioritized experience replay (Schaul et al., 2016) on a sum tree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kusari_rl.misc.sum_tree import SumTree
from kusari_rl.replay_buffers.replay_buffer import ReplayBuffer

__all__ = ["PrioritizedReplayBuffer", "PriorityWeightError"]


class PriorityWeightError:
    """Priorities from TD errors and importance weights from probabilities.

    Args:
        alpha: Priority exponent: ``p = (clip(|err|) + eps) ** alpha``.
        beta0: Initial importance-sampling exponent.
        betasteps: Sampling calls over which beta rises linearly to 1.
        eps: Added to errors so that no experience gets zero priority.
        normalize_by_max: ``True``: divide weights by the largest possible
            weight (from the global minimum probability); ``'batch'``: by the
            largest in the minibatch; ``False``: no normalisation.
        error_min, error_max: Clip errors into this range (None: no clip).
    """

    def __init__(
        self,
        alpha: float,
        beta0: float,
        betasteps: float | None,
        eps: float,
        normalize_by_max: bool | str,
        error_min: float | None,
        error_max: float | None,
    ) -> None:
        if not 0.0 <= alpha:
            raise ValueError(f"PriorityWeightError: alpha must be >= 0, got {alpha}")
        if normalize_by_max not in (True, False, "batch", "memory"):
            raise ValueError(
                "PriorityWeightError: normalize_by_max must be True, False, 'batch' "
                f"or 'memory', got {normalize_by_max!r}"
            )
        self.alpha = alpha
        self.beta = beta0
        self.beta_add = (1.0 - beta0) / betasteps if betasteps else 0.0
        self.eps = eps
        self.normalize_by_max = normalize_by_max
        self.error_min = error_min
        self.error_max = error_max

    def priority_from_errors(self, errors: Sequence[float] | np.ndarray) -> np.ndarray:
        e = np.abs(np.asarray(errors, dtype=np.float64))
        if self.error_min is not None or self.error_max is not None:
            e = np.clip(e, self.error_min, self.error_max)
        return (e + self.eps) ** self.alpha

    def weights_from_probabilities(
        self, probabilities: np.ndarray, min_probability: float, n_stored: int
    ) -> np.ndarray:
        p = np.asarray(probabilities, dtype=np.float64)
        if self.normalize_by_max == "batch":
            w = (p / p.min()) ** -self.beta
        elif self.normalize_by_max:
            w = (p / min_probability) ** -self.beta
        else:
            w = (n_stored * p) ** -self.beta
        self.beta = min(1.0, self.beta + self.beta_add)
        return w.astype(np.float32)


class PrioritizedReplayBuffer(ReplayBuffer, PriorityWeightError):
    """Replay buffer sampling experiences in proportion to their priority.

    New experiences get the largest priority seen so far. After an update,
    call :meth:`update_errors` with the TD errors of the last sample. The
    first transition of each sampled experience carries its importance
    ``weight``; :func:`~kusari_rl.replay_buffer.batch_experiences` turns them
    into ``batch['weights']``.

    Args: see :class:`ReplayBuffer` and :class:`PriorityWeightError`.
    """

    def __init__(
        self,
        capacity: int | None = None,
        alpha: float = 0.6,
        beta0: float = 0.4,
        betasteps: float | None = 2e5,
        eps: float = 0.01,
        normalize_by_max: bool | str = True,
        error_min: float | None = 0.0,
        error_max: float | None = 1.0,
        num_steps: int = 1,
    ) -> None:
        ReplayBuffer.__init__(self, capacity=capacity, num_steps=num_steps)
        PriorityWeightError.__init__(
            self, alpha, beta0, betasteps, eps, normalize_by_max, error_min, error_max
        )
        self.data: list[Any] = []
        self.tree = SumTree(capacity if capacity is not None else 1024)
        self.next_slot = 0
        self.max_priority = 1.0
        self.last_indices: np.ndarray | None = None

    def _push(self, experience: list[dict[str, Any]]) -> None:
        slot = self.next_slot
        if slot == len(self.data):
            self.data.append(experience)
        else:
            self.data[slot] = experience
        self.tree.set([slot], [self.max_priority])
        self.next_slot = slot + 1
        if self.capacity is not None and self.next_slot == self.capacity:
            self.next_slot = 0

    def __len__(self) -> int:
        return len(self.data)

    def sample(self, num_experiences: int) -> list[list[dict[str, Any]]]:
        n = len(self.data)
        if num_experiences > n:
            raise ValueError(
                f"PrioritizedReplayBuffer.sample: asked for {num_experiences} "
                f"experiences, only {n} stored"
            )
        idx = self.tree.sample(num_experiences)
        total = self.tree.total()
        probs = self.tree.get(idx) / total
        weights = self.weights_from_probabilities(probs, self.tree.min() / total, n)
        self.last_indices = idx
        sampled = [self.data[i] for i in idx.tolist()]
        for e, w in zip(sampled, weights.tolist()):
            e[0]["weight"] = w
        return sampled

    def update_errors(self, errors: Sequence[float] | np.ndarray) -> None:
        """Set the priorities of the last sampled experiences from TD errors."""
        if self.last_indices is None:
            raise RuntimeError(
                "PrioritizedReplayBuffer.update_errors: call sample() first"
            )
        errors = np.asarray(errors).ravel()
        if errors.size != self.last_indices.size:
            raise ValueError(
                f"PrioritizedReplayBuffer.update_errors: {errors.size} errors for "
                f"{self.last_indices.size} sampled experiences"
            )
        priorities = self.priority_from_errors(errors)
        self.tree.set(self.last_indices, priorities)
        self.max_priority = max(self.max_priority, float(priorities.max()))

    def _state(self) -> dict[str, Any]:
        state = super()._state()
        state.update(
            data=self.data,
            tree=self.tree,
            next_slot=self.next_slot,
            max_priority=self.max_priority,
            beta=self.beta,
        )
        return state

    def _set_state(self, state: dict[str, Any]) -> None:
        super()._set_state(state)
        self.data = state["data"]
        self.tree = state["tree"]
        self.next_slot = state["next_slot"]
        self.max_priority = state["max_priority"]
        self.beta = state["beta"]
        self.last_indices = None
