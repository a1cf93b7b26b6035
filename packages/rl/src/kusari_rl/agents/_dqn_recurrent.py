"""The recurrent half of :class:`~kusari_rl.agents.DQN` (``recurrent=True``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import kusari
from kusari_rl.agents._recurrent import (
    batch_reset_recurrent_states_when_episodes_end,
    unwrap_recurrent_state,
)
from kusari_rl.agents._value_losses import clip_grad_norm
from kusari_rl.replay_buffer import batch_recurrent_experiences

__all__ = ["RecurrentQMixin"]


class RecurrentQMixin:
    """Hidden-state bookkeeping and the sequence update of the DQN family.

    With ``recurrent`` false every method reduces to the feed-forward case.
    """

    # Provided by DQN.
    model: Any
    optimizer: Any
    device: Any
    phi: Any
    gamma: float
    batch_states: Any
    recurrent: bool
    max_grad_norm: float | None
    average_loss: float
    average_loss_decay: float
    train_recurrent_states: Any
    train_prev_recurrent_states: Any
    test_recurrent_states: Any
    obs_normalizer: Any
    # Provided by EvalAverageMixin.
    _update_eval_average: Callable[[], None]
    _eval_model: Callable[[], Any]

    def _compute_loss(self, exp_batch: dict[str, Any], errors_out: Any = None) -> Any:
        raise NotImplementedError

    def update_from_episodes(
        self, episodes: list[list[dict[str, Any]]], errors_out: list | None = None
    ) -> None:
        """Update a recurrent model from sampled sequences of transitions."""
        if errors_out is not None:
            raise ValueError(
                f"{type(self).__name__}.update_from_episodes: TD errors of "
                "sequences are not computed (errors_out must be None)"
            )
        exp_batch = batch_recurrent_experiences(
            episodes,
            self.model,
            self.device,
            self.phi,
            self.gamma,
            batch_states=self.batch_states,
        )
        loss = self._compute_loss(exp_batch)
        self.average_loss *= self.average_loss_decay
        self.average_loss += (1 - self.average_loss_decay) * float(loss.array)
        self.model.cleargrads()
        loss.backward()
        if self.max_grad_norm is not None:
            clip_grad_norm(self.model, self.max_grad_norm)
        self.optimizer.update()
        self._update_eval_average()

    def _forward(self, model: Any, exp_batch: dict[str, Any], key: str) -> Any:
        """Evaluate ``model`` on ``exp_batch[key]`` (``'state'``/``'next_state'``).

        A recurrent model runs over the sampled sequences from their stored
        states; its outputs are concatenated in the order of the flattened
        per-transition arrays of ``exp_batch``.
        """
        if not self.recurrent:
            return model(exp_batch[key])
        rs_key = "recurrent_state" if key == "state" else "next_recurrent_state"
        out, _ = model.n_step_forward(exp_batch[key], exp_batch[rs_key], "concat")
        return out

    def _evaluate_model(self, batch_obs: Sequence[Any], train: bool = False) -> Any:
        """Action values for ``batch_obs``; advances the training (``train``)
        or evaluation hidden states of a recurrent model."""
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            xs = self.batch_states(batch_obs, self.device, self.phi)
            if not self.recurrent:
                if self.obs_normalizer is not None:
                    if train:
                        self.obs_normalizer.experience(xs)
                    xs = self._normalize(xs)
                return (self.model if train else self._eval_model())(xs)
            if train:
                self.train_prev_recurrent_states = self.train_recurrent_states
                av, rs = self.model(xs, self.train_recurrent_states)
                self.train_recurrent_states = unwrap_recurrent_state(rs)
            else:
                av, rs = self._eval_model()(xs, self.test_recurrent_states)
                self.test_recurrent_states = unwrap_recurrent_state(rs)
            return av

    def _normalize(self, xs: Any) -> Any:
        """``xs`` normalised by ``obs_normalizer`` (statistics unchanged)."""
        y = self.obs_normalizer(xs, update=False)
        # A Variable when the normaliser clips, an array otherwise.
        return getattr(y, "array", y)

    def _stored_recurrent_states(self, i: int) -> dict[str, Any]:
        """The states before and after ``last_state`` of env ``i``, to store
        with its transition (nothing for a feed-forward model)."""
        if not self.recurrent:
            return {}
        get = self.model.get_recurrent_state_at
        return {
            "recurrent_state": get(self.train_prev_recurrent_states, i, True),
            "next_recurrent_state": get(self.train_recurrent_states, i, True),
        }

    def _reset_ended_recurrent_states(
        self, batch_done: Sequence[bool], batch_reset: Sequence[bool], train: bool
    ) -> None:
        if not self.recurrent:
            return
        if train:
            self.train_prev_recurrent_states = None
            self.train_recurrent_states = (
                batch_reset_recurrent_states_when_episodes_end(
                    self.model, batch_done, batch_reset, self.train_recurrent_states
                )
            )
        else:
            self.test_recurrent_states = batch_reset_recurrent_states_when_episodes_end(
                self.model, batch_done, batch_reset, self.test_recurrent_states
            )
