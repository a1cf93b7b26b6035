"""Replay buffer that keeps whole episodes (for recurrent or episodic updates)."""

from __future__ import annotations

import pickle
import random
from typing import Any

from kusari.utils.atomic import atomic_write
from kusari_rl.misc.collections import RandomAccessQueue
from kusari_rl.replay_buffer import AbstractEpisodicReplayBuffer

__all__ = ["EpisodicReplayBuffer"]

_FORMAT = "kusari_rl.EpisodicReplayBuffer/1"


class EpisodicReplayBuffer(AbstractEpisodicReplayBuffer):
    """Stores transitions grouped by episode.

    Transitions become sampleable once their episode ends (terminal or
    :meth:`stop_current_episode`). When more than ``capacity`` transitions
    are stored, the oldest whole episodes are dropped.

    Args:
        capacity: Maximum number of transitions (None: unbounded).
    """

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = capacity
        self.current_episode: dict[int, list[dict[str, Any]]] = {}
        self.episodic_memory = RandomAccessQueue()
        self.memory = RandomAccessQueue()

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
        episode = self.current_episode.setdefault(env_id, [])
        episode.append(
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
            self.stop_current_episode(env_id)

    def stop_current_episode(self, env_id: int = 0) -> None:
        episode = self.current_episode.pop(env_id, None)
        if not episode:
            return
        self.episodic_memory.append(episode)
        for transition in episode:
            self.memory.append([transition])
        if self.capacity is not None:
            while len(self.memory) > self.capacity and len(self.episodic_memory) > 1:
                dropped = self.episodic_memory.popleft()
                for _ in range(len(dropped)):
                    self.memory.popleft()

    def sample(self, n: int) -> list[list[dict[str, Any]]]:
        if n > len(self.memory):
            raise ValueError(
                f"EpisodicReplayBuffer.sample: asked for {n}, only "
                f"{len(self.memory)} stored"
            )
        return self.memory.sample(n)

    def sample_episodes(
        self, n_episodes: int, max_len: int | None = None
    ) -> list[list[dict[str, Any]]]:
        if n_episodes > self.n_episodes:
            raise ValueError(
                f"EpisodicReplayBuffer.sample_episodes: asked for {n_episodes} "
                f"episodes, only {self.n_episodes} stored"
            )
        episodes = self.episodic_memory.sample(n_episodes)
        if max_len is None:
            return episodes
        out = []
        for ep in episodes:
            if len(ep) > max_len:
                start = random.randint(0, len(ep) - max_len)
                ep = ep[start : start + max_len]
            out.append(ep)
        return out

    def __len__(self) -> int:
        return len(self.memory)

    @property
    def n_episodes(self) -> int:
        return len(self.episodic_memory)

    def save(self, filename: str) -> None:
        state = {
            "format": _FORMAT,
            "episodes": list(self.episodic_memory),
            "current": self.current_episode,
        }
        with atomic_write(filename, "wb") as f:
            pickle.dump(state, f, protocol=pickle.HIGHEST_PROTOCOL)

    def load(self, filename: str) -> None:
        with open(filename, "rb") as f:
            state = pickle.load(f)
        if not (isinstance(state, dict) and state.get("format") == _FORMAT):
            raise ValueError(f"EpisodicReplayBuffer.load: {filename} is not one")
        self.episodic_memory = RandomAccessQueue()
        self.memory = RandomAccessQueue()
        for ep in state["episodes"]:
            self.episodic_memory.append(ep)
            for t in ep:
                self.memory.append([t])
        self.current_episode = state["current"]
