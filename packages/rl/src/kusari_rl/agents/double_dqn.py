"""Double DQN (van Hasselt et al., 2016)."""

from __future__ import annotations

from typing import Any

import kusari
from kusari_rl.agents.dqn import DQN

__all__ = ["DoubleDQN"]


class DoubleDQN(DQN):
    """DQN whose target evaluates the online network's greedy action with
    the target network: ``r + gamma Q_target(s', argmax_a Q(s', a))``.

    Same arguments as :class:`~kusari_rl.agents.DQN`.
    """

    def _compute_target_values(self, exp_batch: dict[str, Any]) -> Any:
        online = self._q_values_array(self.model)
        target = self._q_values_array(self.target_model)
        if online is not None and target is not None:
            # Values with no graph (the same numbers as the branch below).
            next_state = exp_batch["next_state"]
            target_q = target(next_state)
            greedy = online(next_state).argmax(axis=1)
            next_q_max = target_q[self.xp.arange(len(target_q)), greedy]
        else:
            with kusari.using_config("train", False):
                next_qout = self._forward(self.model, exp_batch, "next_state")
            target_next_qout = self._forward(self.target_model, exp_batch, "next_state")
            next_q_max = target_next_qout.evaluate_actions(
                next_qout.greedy_actions
            ).array
        return (
            exp_batch["reward"]
            + exp_batch["discount"]
            * (1.0 - exp_batch["is_state_terminal"])
            * next_q_max
        )
