"""Persistent advantage learning with the double-DQN target."""

from __future__ import annotations

from typing import Any

import kusari
from kusari_rl.agents.pal import PAL

__all__ = ["DoublePAL"]


class DoublePAL(PAL):
    """:class:`~kusari_rl.agents.PAL` whose bootstrap value is
    ``Q_target(s', argmax_a Q(s', a))``."""

    def _next_q_max(self, exp_batch: dict[str, Any], target_next_qout: Any) -> Any:
        with kusari.using_config("train", False):
            next_qout = self._forward(self.model, exp_batch, "next_state")
        return target_next_qout.evaluate_actions(next_qout.greedy_actions)
