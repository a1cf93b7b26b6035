"""Replay buffers (``chainerrl.replay_buffers``)."""

from kusari_rl.replay_buffers.episodic import EpisodicReplayBuffer
from kusari_rl.replay_buffers.prioritized import (
    PrioritizedReplayBuffer,
    PriorityWeightError,
)
from kusari_rl.replay_buffers.prioritized_episodic import (
    PrioritizedEpisodicReplayBuffer,
)
from kusari_rl.replay_buffers.replay_buffer import ReplayBuffer

__all__ = [
    "EpisodicReplayBuffer",
    "PrioritizedEpisodicReplayBuffer",
    "PrioritizedReplayBuffer",
    "PriorityWeightError",
    "ReplayBuffer",
]
