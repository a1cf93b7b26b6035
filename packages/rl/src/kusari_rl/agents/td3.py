"""Twin Delayed Deep Deterministic policy gradient (Fujimoto et al., 2018).

See https://arxiv.org/abs/1802.09477.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from logging import Logger, getLogger
from typing import Any

import kusari
import kusari.functions as F
from kusari import backend
from kusari_rl.agents._replay_actor_critic import RecordMean, ReplayActorCritic
from kusari_rl.misc.copy_param import soft_copy_param
from kusari_rl.replay_buffer import batch_experiences

__all__ = ["TD3", "default_target_policy_smoothing_func"]


def default_target_policy_smoothing_func(batch_action: Any) -> Any:
    """Target policy smoothing: add ``clip(N(0, 0.2), -0.5, 0.5)``, clip to [-1, 1].

    This assumes actions normalised to ``[-1, 1]`` (wrap the env with
    ``kusari_rl.wrappers.NormalizeActionSpace`` or pass your own function).
    """
    xp = backend.get_array_module(batch_action)
    noise = xp.random.normal(0.0, 0.2, size=batch_action.shape)
    noise = xp.clip(noise, -0.5, 0.5).astype(batch_action.dtype, copy=False)
    return xp.clip(batch_action + noise, -1.0, 1.0)


class TD3(ReplayActorCritic):
    """Twin Delayed Deep Deterministic policy gradient.

    Three changes to DDPG: two critics whose minimum forms the target
    (clipped double Q-learning), noise on the target action (target policy
    smoothing), and a policy and target update only every
    ``policy_update_delay`` critic updates.

    Args:
        policy: Deterministic policy (returns a point-mass distribution).
        q_func1: First Q-function ``(state, action) -> (batch, 1)``.
        q_func2: Second Q-function.
        policy_optimizer: Optimizer set up with ``policy``.
        q_func1_optimizer: Optimizer set up with ``q_func1``.
        q_func2_optimizer: Optimizer set up with ``q_func2``.
        replay_buffer: Replay buffer.
        gamma: Discount factor.
        explorer: Explorer adding noise to the training actions.
        gpu: GPU id (None or negative: CPU).
        replay_start_size: Updates start once the buffer holds this many.
        minibatch_size: Transitions per update.
        update_interval: Steps between updates.
        phi: Feature extractor applied to observations.
        soft_update_tau: ``tau`` of the Polyak target update.
        n_times_update: Updates per update step.
        logger: Logger.
        batch_states: Function making a batch of observations.
        burnin_action_func: If given, called for the actions taken before
            the first policy update.
        policy_update_delay: Critic updates per policy update.
        target_policy_smoothing_func: Maps the target policy's actions to the
            (noisy, clipped) actions the target critics are evaluated at.
    """

    saved_attributes = (
        "policy",
        "q_func1",
        "q_func2",
        "target_policy",
        "target_q_func1",
        "target_q_func2",
        "policy_optimizer",
        "q_func1_optimizer",
        "q_func2_optimizer",
    )
    snapshot_attributes: Sequence[str] = (
        *ReplayActorCritic.snapshot_attributes,
        "q1_record",
        "q2_record",
    )

    def __init__(
        self,
        policy: Any,
        q_func1: Any,
        q_func2: Any,
        policy_optimizer: Any,
        q_func1_optimizer: Any,
        q_func2_optimizer: Any,
        replay_buffer: Any,
        gamma: float,
        explorer: Any,
        gpu: int | None = None,
        replay_start_size: int = 10000,
        minibatch_size: int = 100,
        update_interval: int = 1,
        phi: Callable[[Any], Any] = lambda x: x,
        soft_update_tau: float = 5e-3,
        n_times_update: int = 1,
        logger: Logger | None = None,
        batch_states: Callable[..., Any] | None = None,
        burnin_action_func: Callable[[], Any] | None = None,
        policy_update_delay: int = 2,
        target_policy_smoothing_func: Callable[
            [Any], Any
        ] = default_target_policy_smoothing_func,
    ) -> None:
        if policy_update_delay < 1:
            raise ValueError(
                f"TD3: policy_update_delay must be >= 1, got {policy_update_delay}"
            )
        self.policy = policy
        self.q_func1 = q_func1
        self.q_func2 = q_func2
        if gpu is not None and gpu >= 0:
            for link in (policy, q_func1, q_func2):
                link.to_device(gpu)
        self.xp = policy.xp
        self.gpu = gpu
        self.gamma = gamma
        self.explorer = explorer
        self.soft_update_tau = soft_update_tau
        self.policy_optimizer = policy_optimizer
        self.q_func1_optimizer = q_func1_optimizer
        self.q_func2_optimizer = q_func2_optimizer
        self.policy_update_delay = policy_update_delay
        self.target_policy_smoothing_func = target_policy_smoothing_func
        self._setup_acting(
            replay_buffer=replay_buffer,
            minibatch_size=minibatch_size,
            replay_start_size=replay_start_size,
            update_interval=update_interval,
            n_times_update=n_times_update,
            phi=phi,
            batch_states=batch_states,
            burnin_action_func=burnin_action_func,
            logger=logger or getLogger(__name__),
        )
        self.target_policy = copy.deepcopy(policy)
        self.target_q_func1 = copy.deepcopy(q_func1)
        self.target_q_func2 = copy.deepcopy(q_func2)
        self.q1_record = RecordMean(1000)
        self.q2_record = RecordMean(1000)
        self.q_func1_loss_record = RecordMean(100)
        self.q_func2_loss_record = RecordMean(100)
        self.policy_loss_record = RecordMean(100)

    def sync_target_network(self) -> None:
        """Polyak-average the three target networks towards the online ones."""
        tau = self.soft_update_tau
        soft_copy_param(self.target_policy, self.policy, tau)
        soft_copy_param(self.target_q_func1, self.q_func1, tau)
        soft_copy_param(self.target_q_func2, self.q_func2, tau)

    def _n_policy_updates(self) -> int:
        return int(self.policy_optimizer.t)

    def compute_target_q(self, batch: dict[str, Any]) -> Any:
        """``r + discount * (1 - terminal) * min_i Q'_i(s', smooth(mu'(s')))``."""
        next_state = batch["next_state"]
        with kusari.no_backprop_mode(), kusari.using_config("train", False):
            next_action = self.target_policy_smoothing_func(
                self.target_policy(next_state).sample().array
            )
            next_q1 = self.target_q_func1(next_state, next_action).array
            next_q2 = self.target_q_func2(next_state, next_action).array
        xp = backend.get_array_module(next_q1)
        next_q = xp.minimum(next_q1, next_q2).reshape(-1)
        target = (
            batch["reward"]
            + batch["discount"] * (1.0 - batch["is_state_terminal"]) * next_q
        )
        return target.astype(next_q1.dtype, copy=False)

    def update_q_func(self, batch: dict[str, Any]) -> None:
        """One regression step of both critics towards the shared target."""
        target_q = self.compute_target_q(batch)
        state, action = batch["state"], batch["action"]
        predict_q1 = F.flatten(self.q_func1(state, action))
        predict_q2 = F.flatten(self.q_func2(state, action))
        loss1 = F.mean_squared_error(predict_q1, target_q)
        loss2 = F.mean_squared_error(predict_q2, target_q)
        self.q1_record.extend(predict_q1.array)
        self.q2_record.extend(predict_q2.array)
        self.q_func1_loss_record.append(float(loss1.array))
        self.q_func2_loss_record.append(float(loss2.array))
        self.q_func1_optimizer.update(lambda: loss1)
        self.q_func2_optimizer.update(lambda: loss2)

    def update_policy(self, batch: dict[str, Any]) -> None:
        """Ascend ``Q1(s, mu(s))``."""
        state = batch["state"]
        q = self.q_func1(state, self.policy(state).sample())
        loss = -F.mean(q)
        self.policy_loss_record.append(float(loss.array))
        self.policy_optimizer.update(lambda: loss)

    def update(self, experiences: Any, errors_out: Any = None) -> None:
        """Critic update; every ``policy_update_delay``-th one also the policy."""
        batch = batch_experiences(experiences, self.xp, self.phi, self.gamma)
        self.update_q_func(batch)
        if self.q_func1_optimizer.t % self.policy_update_delay == 0:
            self.update_policy(batch)
            self.sync_target_network()

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_q1", self.q1_record.mean()),
            ("average_q2", self.q2_record.mean()),
            ("average_q_func1_loss", self.q_func1_loss_record.mean()),
            ("average_q_func2_loss", self.q_func2_loss_record.mean()),
            ("average_policy_loss", self.policy_loss_record.mean()),
            ("policy_n_updates", self.policy_optimizer.t),
            ("q_func_n_updates", self.q_func1_optimizer.t),
        ]
