"""Episodic replay with prioritized sampling of whole episodes."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from kusari.utils.atomic import atomic_write
from kusari_rl.misc.collections import RandomAccessQueue
from kusari_rl.misc.sum_tree import SumTree
from kusari_rl.replay_buffers.episodic import EpisodicReplayBuffer
from kusari_rl.replay_buffers.prioritized import PriorityWeightError

__all__ = ["PrioritizedEpisodicReplayBuffer"]

_FORMAT = "kusari_rl.PrioritizedEpisodicReplayBuffer/1"


class PrioritizedEpisodicReplayBuffer(EpisodicReplayBuffer, PriorityWeightError):
    """Episodic replay buffer whose :meth:`sample_episodes` follows priorities.

    Each finished episode gets ``default_priority_func(episode)`` or, without
    one, the largest priority so far. After learning from sampled episodes,
    call :meth:`update_errors` with one error per episode.

    Args:
        capacity: Maximum number of transitions (oldest episodes dropped).
        alpha, beta0, betasteps, eps, normalize_by_max, error_min, error_max:
            See :class:`PriorityWeightError`.
        default_priority_func: Priority of a new episode from its transitions.
        uniform_ratio: Probability of sampling an episode uniformly instead.
        wait_priority_after_sampling: Require :meth:`update_errors` between
            two calls of :meth:`sample_episodes`.
        return_sample_weights: :meth:`sample_episodes` returns
            ``(episodes, weights)`` instead of ``episodes``.
    """

    def __init__(
        self,
        capacity: int | None = None,
        alpha: float = 0.6,
        beta0: float = 0.4,
        betasteps: float | None = 2e5,
        eps: float = 1e-8,
        normalize_by_max: bool | str = True,
        default_priority_func: Callable[[list[dict[str, Any]]], float] | None = None,
        uniform_ratio: float = 0.0,
        wait_priority_after_sampling: bool = True,
        return_sample_weights: bool = True,
        error_min: float | None = None,
        error_max: float | None = None,
    ) -> None:
        EpisodicReplayBuffer.__init__(self, capacity=capacity)
        PriorityWeightError.__init__(
            self, alpha, beta0, betasteps, eps, normalize_by_max, error_min, error_max
        )
        if not 0.0 <= uniform_ratio <= 1.0:
            raise ValueError(
                "PrioritizedEpisodicReplayBuffer: uniform_ratio must be in [0, 1], "
                f"got {uniform_ratio}"
            )
        self.default_priority_func = default_priority_func
        self.uniform_ratio = uniform_ratio
        self.wait_priority_after_sampling = wait_priority_after_sampling
        self.return_sample_weights = return_sample_weights
        self.tree = SumTree(64)
        self.slots: dict[int, list[dict[str, Any]]] = {}
        self.slot_order: RandomAccessQueue = RandomAccessQueue()
        self.free_slots: list[int] = []
        self.max_priority = 1.0
        self.last_slots: np.ndarray | None = None

    def stop_current_episode(self, env_id: int = 0) -> None:
        episode = self.current_episode.pop(env_id, None)
        if not episode:
            return
        if self.default_priority_func is not None:
            priority = float(self.default_priority_func(episode))
        else:
            priority = self.max_priority
        slot = self.free_slots.pop() if self.free_slots else len(self.slots)
        self.slots[slot] = episode
        self.slot_order.append(slot)
        self.tree.set([slot], [priority])
        self.episodic_memory.append(episode)
        for transition in episode:
            self.memory.append([transition])
        if self.capacity is not None:
            while len(self.memory) > self.capacity and len(self.slot_order) > 1:
                old = self.slot_order.popleft()
                dropped = self.slots.pop(old)
                self.tree.clear([old])
                self.free_slots.append(old)
                self.episodic_memory.popleft()
                for _ in range(len(dropped)):
                    self.memory.popleft()

    def sample_episodes(self, n_episodes: int, max_len: int | None = None) -> Any:
        if n_episodes > self.n_episodes:
            raise ValueError(
                f"PrioritizedEpisodicReplayBuffer.sample_episodes: asked for "
                f"{n_episodes} episodes, only {self.n_episodes} stored"
            )
        if self.wait_priority_after_sampling and self.last_slots is not None:
            raise RuntimeError(
                "PrioritizedEpisodicReplayBuffer: call update_errors() before "
                "sampling again (wait_priority_after_sampling=True)"
            )
        live = np.fromiter(self.slots.keys(), dtype=np.int64, count=len(self.slots))
        slots = self.tree.sample(n_episodes)
        uniform = np.random.random(n_episodes) < self.uniform_ratio
        if uniform.any():
            slots[uniform] = np.random.choice(live, size=int(uniform.sum()))
        total = self.tree.total()
        u = self.uniform_ratio
        probs = (1 - u) * self.tree.get(slots) / total + u / len(live)
        min_prob = (1 - u) * self.tree.min() / total + u / len(live)
        weights = self.weights_from_probabilities(probs, min_prob, len(live))
        self.last_slots = slots
        episodes = [self.slots[s] for s in slots.tolist()]
        if max_len is not None:
            cut = []
            for ep in episodes:
                if len(ep) > max_len:
                    start = random.randint(0, len(ep) - max_len)
                    ep = ep[start : start + max_len]
                cut.append(ep)
            episodes = cut
        return (episodes, weights) if self.return_sample_weights else episodes

    def update_errors(self, errors: Sequence[float] | np.ndarray) -> None:
        """Set the priorities of the last sampled episodes from their errors."""
        if self.last_slots is None:
            raise RuntimeError(
                "PrioritizedEpisodicReplayBuffer.update_errors: call "
                "sample_episodes() first"
            )
        priorities = self.priority_from_errors(errors)
        if priorities.size != self.last_slots.size:
            raise ValueError(
                f"PrioritizedEpisodicReplayBuffer.update_errors: {priorities.size} "
                f"errors for {self.last_slots.size} sampled episodes"
            )
        # Episodes dropped since sampling keep their cleared leaves.
        keep = np.array([s in self.slots for s in self.last_slots.tolist()], dtype=bool)
        self.tree.set(self.last_slots[keep], priorities[keep])
        self.max_priority = max(self.max_priority, float(priorities.max()))
        self.last_slots = None

    def save(self, filename: str) -> None:
        state = {
            "format": _FORMAT,
            "slots": self.slots,
            "slot_order": list(self.slot_order),
            "free_slots": self.free_slots,
            "tree": self.tree,
            "max_priority": self.max_priority,
            "beta": self.beta,
            "current": self.current_episode,
        }
        with atomic_write(filename, "wb") as f:
            pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)

    def load(self, filename: str) -> None:
        with open(filename, "rb") as f:
            state = pickle.load(f)
        if not (isinstance(state, dict) and state.get("format") == _FORMAT):
            raise ValueError(
                f"PrioritizedEpisodicReplayBuffer.load: {filename} is not one"
            )
        self.slots = state["slots"]
        self.slot_order = RandomAccessQueue(state["slot_order"])
        self.free_slots = state["free_slots"]
        self.tree = state["tree"]
        self.max_priority = state["max_priority"]
        self.beta = state["beta"]
        self.current_episode = state["current"]
        self.episodic_memory = RandomAccessQueue()
        self.memory = RandomAccessQueue()
        for slot in self.slot_order:
            episode = self.slots[slot]
            self.episodic_memory.append(episode)
            for transition in episode:
                self.memory.append([transition])
        self.last_slots = None
