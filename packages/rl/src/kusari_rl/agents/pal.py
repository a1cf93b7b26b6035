"""Persistent advantage learning (Bellemare et al., 2016)."""

from __future__ import annotations

from typing import Any

import kusari
import kusari.functions as F
from kusari_rl.agents.dqn import DQN

__all__ = ["PAL"]


class PAL(DQN):
    """DQN with the persistent advantage learning operator.

    The target adds ``alpha * max(A(s, a), A(s', a))`` (advantages from the
    target network) to the Bellman target, widening the action gap.

    Args:
        alpha: Weight of the advantage term (keyword, default 0.9); the
            other arguments are :class:`~kusari_rl.agents.DQN`'s.
    """

    def __init__(self, *args: Any, alpha: float = 0.9, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.alpha = alpha

    def _next_q_max(self, exp_batch: dict[str, Any], target_next_qout: Any) -> Any:
        return target_next_qout.max

    def _compute_y_and_t(self, exp_batch: dict[str, Any]) -> tuple[Any, Any]:
        batch_size = exp_batch["reward"].shape[0]
        actions = exp_batch["action"]
        qout = self._forward(self.model, exp_batch, "state")
        batch_q = F.reshape(qout.evaluate_actions(actions), (batch_size, 1))
        with kusari.no_backprop_mode():
            target_qout = self._forward(self.target_model, exp_batch, "state")
            target_next_qout = self._forward(self.target_model, exp_batch, "next_state")
            next_q_max = F.reshape(
                self._next_q_max(exp_batch, target_next_qout), (batch_size,)
            ).array
            t_q = (
                exp_batch["reward"]
                + exp_batch["discount"]
                * (1.0 - exp_batch["is_state_terminal"])
                * next_q_max
            )
            cur_adv = target_qout.compute_advantage(actions).array
            next_adv = target_next_qout.compute_advantage(actions).array
            tpal_q = t_q + self.alpha * self.xp.maximum(cur_adv, next_adv)
        return batch_q, self.xp.reshape(tpal_q, (batch_size, 1)).astype(batch_q.dtype)
