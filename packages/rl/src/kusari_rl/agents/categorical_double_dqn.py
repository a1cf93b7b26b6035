"""Categorical DQN with the double-DQN action choice (Rainbow's learner)."""

from __future__ import annotations

from typing import Any

import kusari
from kusari_rl.agents.categorical_dqn import CategoricalDQN

__all__ = ["CategoricalDoubleDQN"]


class CategoricalDoubleDQN(CategoricalDQN):
    """:class:`~kusari_rl.agents.CategoricalDQN` bootstrapping from the target
    distribution of the online network's greedy next action.

    Rainbow is this agent with a
    :class:`~kusari_rl.q_functions.DistributionalDuelingDQN` made noisy by
    :func:`~kusari_rl.links.to_factorized_noisy`, a 3-step
    :class:`~kusari_rl.replay_buffers.PrioritizedReplayBuffer` and the
    :class:`~kusari_rl.explorers.Greedy` explorer
    (see ``examples/atari/train_rainbow.py``).
    """

    def _target_distribution(
        self, exp_batch: dict[str, Any], target_next_qout: Any
    ) -> Any:
        with kusari.using_config("train", False):
            next_qout = self._forward(self.model, exp_batch, "next_state")
        return target_next_qout.evaluate_actions_as_distribution(
            next_qout.greedy_actions.array
        ).array
