"""The learning half of :class:`~kusari_rl.agents.DQN`: the target network
and the minibatch update.

Subclasses (Double DQN, PAL, C51, IQN) override the target and loss hooks
(``_compute_target_values``, ``_compute_y_and_t``, ``_compute_loss``); the
update itself is shared.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
from kusari_rl.agents._value_losses import (
    clip_grad_norm,
    compute_value_loss,
    compute_weighted_value_loss,
)
from kusari_rl.misc.batch_states import batch_states as default_batch_states
from kusari_rl.misc.batch_states import is_identity
from kusari_rl.misc.copy_param import copy_param, soft_copy_param
from kusari_rl.replay_buffer import batch_experiences

__all__ = ["DQNLearningMixin"]


class DQNLearningMixin:
    """Target-network refresh and the one-step / n-step TD update of DQN."""

    # Provided by DQN.
    model: Any
    target_model: Any
    target_q_function: Any
    target_update_method: str
    soft_update_tau: float
    optimizer: Any
    replay_buffer: Any
    device: Any
    xp: Any
    phi: Any
    gamma: float
    batch_states: Any
    obs_normalizer: Any
    max_grad_norm: float | None
    clip_delta: bool
    batch_accumulator: str
    average_loss: float
    average_loss_decay: float
    recurrent: bool
    # Provided by RecurrentQMixin and EvalAverageMixin.
    _forward: Callable[..., Any]
    _normalize: Callable[[Any], Any]
    _update_eval_average: Callable[[], None]

    # ---- target network ----------------------------------------------------

    def sync_target_network(self) -> None:
        """Copy (hard) or move towards (soft) the model's parameters."""
        if self.target_model is None:
            self.target_model = copy.deepcopy(self.model)
            self.target_q_function = self.target_model
            # The target is never trained directly.
            self.target_model.disable_update()
        elif self.target_update_method == "hard":
            copy_param(self.target_model, self.model)
        else:
            soft_copy_param(self.target_model, self.model, self.soft_update_tau)

    # ---- learning ----------------------------------------------------------

    def update(
        self, experiences: list[list[dict[str, Any]]], errors_out: list | None = None
    ) -> None:
        """Update the model from sampled experiences."""
        has_weight = "weight" in experiences[0][0]
        exp_batch = self._batch_nstep_from_columns(experiences)
        if exp_batch is None:
            exp_batch = batch_experiences(
                experiences,
                self.device,
                self.phi,
                self.gamma,
                batch_states=self.batch_states,
            )
        if self.obs_normalizer is not None:
            # The buffer holds raw observations: normalise with today's
            # statistics, as acting does (one call for both halves: the
            # normalisation is elementwise).
            state = exp_batch["state"]
            both = self._normalize(
                self.xp.concatenate((state, exp_batch["next_state"]))
            )
            exp_batch["state"] = both[: len(state)]
            exp_batch["next_state"] = both[len(state) :]
        if has_weight and errors_out is None:
            errors_out = []
        loss = self._compute_loss(exp_batch, errors_out=errors_out)
        if has_weight:
            # Sampled with priorities: feed the new TD errors back.
            self.replay_buffer.update_errors(errors_out)
        self.average_loss *= self.average_loss_decay
        self.average_loss += (1 - self.average_loss_decay) * float(loss.array)
        self.model.cleargrads()
        loss.backward()
        if self.max_grad_norm is not None:
            clip_grad_norm(self.model, self.max_grad_norm)
        self.optimizer.update()
        self._update_eval_average()

    def _batch_nstep_from_columns(self, experiences: Any) -> dict[str, Any] | None:
        """The minibatch of n-step experiences from the replay buffer's column
        copies (the arrays ``batch_experiences`` would build), or None."""
        columns = getattr(experiences, "columns", None)
        if (
            columns is None
            or self.xp is not np
            or self.batch_states is not default_batch_states
            or not is_identity(self.phi)
        ):
            return None
        return columns.nstep_batch(experiences, self.gamma)

    def _q_values_array(self, model: Any) -> Callable[[Any], Any] | None:
        """``model.q_values_array`` (values with no graph) where it has one."""
        return None if self.recurrent else getattr(model, "q_values_array", None)

    def _compute_target_values(self, exp_batch: dict[str, Any]) -> Any:
        fast = self._q_values_array(self.target_model)
        if fast is not None:
            next_q_max = fast(exp_batch["next_state"]).max(axis=1)
        else:
            target_next_qout = self._forward(self.target_model, exp_batch, "next_state")
            q = getattr(target_next_qout, "q_values", None)
            if q is not None:
                next_q_max = q.array.max(axis=1)
            else:
                next_q_max = target_next_qout.max.array
        return (
            exp_batch["reward"]
            + exp_batch["discount"]
            * (1.0 - exp_batch["is_state_terminal"])
            * next_q_max
        )

    def _compute_y_and_t(self, exp_batch: dict[str, Any]) -> tuple[Any, Any]:
        batch_size = exp_batch["reward"].shape[0]
        qout = self._forward(self.model, exp_batch, "state")
        batch_q = F.reshape(qout.evaluate_actions(exp_batch["action"]), (batch_size, 1))
        with kusari.no_backprop_mode():
            batch_q_target = self._compute_target_values(exp_batch)
        target = self.xp.reshape(batch_q_target, (batch_size, 1)).astype(
            batch_q.dtype, copy=False
        )
        return batch_q, target

    def _compute_loss(
        self, exp_batch: dict[str, Any], errors_out: list | None = None
    ) -> Any:
        y, t = self._compute_y_and_t(exp_batch)
        if errors_out is not None:
            del errors_out[:]
            delta = self.xp.abs(y.array - t).ravel()
            errors_out.extend(kusari.backend.CpuDevice().send(delta).tolist())
        if "weights" in exp_batch:
            return compute_weighted_value_loss(
                y,
                t,
                exp_batch["weights"],
                clip_delta=self.clip_delta,
                batch_accumulator=self.batch_accumulator,
            )
        return compute_value_loss(
            y, t, clip_delta=self.clip_delta, batch_accumulator=self.batch_accumulator
        )
