"""Soft Actor-Critic (Haarnoja et al., 2018), with a learned temperature.

See https://arxiv.org/abs/1812.05905.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from logging import Logger, getLogger
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
from kusari import backend
from kusari_rl.agents._replay_actor_critic import RecordMean, ReplayActorCritic
from kusari_rl.misc.copy_param import soft_copy_param
from kusari_rl.replay_buffer import batch_experiences

__all__ = ["SoftActorCritic", "TemperatureHolder"]


class TemperatureHolder(kusari.Link):
    """Link holding ``log(temperature)`` as its one learnable parameter.

    Args:
        initial_log_temperature: Initial ``log(temperature)``.
    """

    def __init__(self, initial_log_temperature: float = 0.0) -> None:
        super().__init__()
        with self.init_scope():
            self.log_temperature = kusari.Parameter(
                np.array(initial_log_temperature, dtype=np.float32)
            )

    def forward(self) -> Any:
        """The temperature ``exp(log_temperature)`` as a Variable."""
        return F.exp(self.log_temperature)


def _sample_with_log_prob(distrib: Any) -> tuple[Any, Any]:
    # One reparameterised draw and its log density; distributions without a
    # fused method fall back to sample() followed by log_prob().
    fused = getattr(distrib, "sample_with_log_prob", None)
    if fused is not None:
        return fused()
    action = distrib.sample()
    return action, distrib.log_prob(action)


class SoftActorCritic(ReplayActorCritic):
    """Soft Actor-Critic.

    The critics regress
    ``r + discount * (1 - terminal) * (min_i Q'_i(s', a') - alpha log pi(a'|s'))``
    with ``a' ~ pi(s')``; the policy minimises
    ``E[alpha log pi(a|s) - min_i Q_i(s, a)]`` through a reparameterised
    sample; with ``entropy_target`` set, the temperature ``alpha`` is adjusted
    so that the policy's entropy tracks that target.

    Args:
        policy: Stochastic policy returning a reparameterisable distribution
            (e.g. a ``SquashedGaussianDistribution``).
        q_func1: First Q-function ``(state, action) -> (batch, 1)``.
        q_func2: Second Q-function.
        policy_optimizer: Optimizer set up with ``policy``.
        q_func1_optimizer: Optimizer set up with ``q_func1``.
        q_func2_optimizer: Optimizer set up with ``q_func2``.
        replay_buffer: Replay buffer.
        gamma: Discount factor.
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
        initial_temperature: Initial ``alpha`` (fixed when ``entropy_target``
            is None).
        entropy_target: Target entropy, typically ``-action_size``; None
            keeps the temperature fixed.
        temperature_optimizer: Optimizer for ``log(alpha)`` (Adam by
            default).
        act_deterministically: Evaluate with the distribution's most probable
            action instead of a sample.
    """

    saved_attributes = (
        "policy",
        "q_func1",
        "q_func2",
        "target_q_func1",
        "target_q_func2",
        "policy_optimizer",
        "q_func1_optimizer",
        "q_func2_optimizer",
        "temperature_holder",
        "temperature_optimizer",
    )
    snapshot_attributes: Sequence[str] = (
        *ReplayActorCritic.snapshot_attributes,
        "q1_record",
        "q2_record",
        "entropy_record",
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
        initial_temperature: float = 1.0,
        entropy_target: float | None = None,
        temperature_optimizer: Any = None,
        act_deterministically: bool = True,
    ) -> None:
        if initial_temperature <= 0:
            raise ValueError(
                "SoftActorCritic: initial_temperature must be positive, got "
                f"{initial_temperature}"
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
        self.soft_update_tau = soft_update_tau
        self.policy_optimizer = policy_optimizer
        self.q_func1_optimizer = q_func1_optimizer
        self.q_func2_optimizer = q_func2_optimizer
        self.initial_temperature = initial_temperature
        self.entropy_target = entropy_target
        self.temperature_holder: TemperatureHolder | None = None
        self.temperature_optimizer = None
        if entropy_target is not None:
            self.temperature_holder = TemperatureHolder(math.log(initial_temperature))
            if gpu is not None and gpu >= 0:
                self.temperature_holder.to_device(gpu)
            if temperature_optimizer is None:
                temperature_optimizer = kusari.optimizers.Adam()
            temperature_optimizer.setup(self.temperature_holder)
            self.temperature_optimizer = temperature_optimizer
        self.act_deterministically = act_deterministically
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
        self.target_q_func1 = copy.deepcopy(q_func1)
        self.target_q_func2 = copy.deepcopy(q_func2)
        self.q1_record = RecordMean(1000)
        self.q2_record = RecordMean(1000)
        self.entropy_record = RecordMean(1000)
        self.q_func1_loss_record = RecordMean(100)
        self.q_func2_loss_record = RecordMean(100)

    @property
    def temperature(self) -> float:
        """The current temperature ``alpha``."""
        if self.temperature_holder is None:
            return float(self.initial_temperature)
        return float(math.exp(float(self.temperature_holder.log_temperature.array)))

    def sync_target_network(self) -> None:
        """Polyak-average the target critics towards the online ones."""
        soft_copy_param(self.target_q_func1, self.q_func1, self.soft_update_tau)
        soft_copy_param(self.target_q_func2, self.q_func2, self.soft_update_tau)

    def _n_policy_updates(self) -> int:
        return int(self.policy_optimizer.t)

    def _greedy_action_from(self, distrib: Any) -> Any:
        if self.act_deterministically:
            return distrib.most_probable.array
        return distrib.sample().array

    def compute_target_q(self, batch: dict[str, Any]) -> Any:
        """The soft Bellman target of both critics (an array)."""
        next_state = batch["next_state"]
        with kusari.no_backprop_mode(), kusari.using_config("train", False):
            next_action, next_log_prob = _sample_with_log_prob(self.policy(next_state))
            next_q1 = self.target_q_func1(next_state, next_action).array
            next_q2 = self.target_q_func2(next_state, next_action).array
        xp = backend.get_array_module(next_q1)
        soft_v = xp.minimum(next_q1, next_q2).reshape(-1) - (
            self.temperature * next_log_prob.array
        )
        target = (
            batch["reward"]
            + batch["discount"] * (1.0 - batch["is_state_terminal"]) * soft_v
        )
        return target.astype(next_q1.dtype, copy=False)

    def update_q_func(self, batch: dict[str, Any]) -> None:
        """One regression step of both critics towards the soft target."""
        target_q = self.compute_target_q(batch)
        state, action = batch["state"], batch["action"]
        predict_q1 = F.flatten(self.q_func1(state, action))
        predict_q2 = F.flatten(self.q_func2(state, action))
        loss1 = 0.5 * F.mean_squared_error(predict_q1, target_q)
        loss2 = 0.5 * F.mean_squared_error(predict_q2, target_q)
        self.q1_record.extend(predict_q1.array)
        self.q2_record.extend(predict_q2.array)
        self.q_func1_loss_record.append(float(loss1.array))
        self.q_func2_loss_record.append(float(loss2.array))
        self.q_func1_optimizer.update(lambda: loss1)
        self.q_func2_optimizer.update(lambda: loss2)

    def update_temperature(self, log_prob: Any) -> None:
        """Step ``log(alpha)`` on ``-mean(alpha * (log_prob + entropy_target))``.

        When the entropy ``-log_prob`` is below the target the gradient raises
        ``alpha`` (more exploration), and lowers it when above.
        """
        assert self.temperature_holder is not None
        assert self.temperature_optimizer is not None
        if isinstance(log_prob, kusari.Variable):
            log_prob = log_prob.array
        # The loss is -exp(log_alpha) * c with c a constant of the batch, so
        # its gradient is the loss itself: set it directly instead of
        # building and backpropagating a graph for one scalar (the optimizer,
        # its hooks and its state see the same gradient either way).
        param = self.temperature_holder.log_temperature
        c = float((log_prob + self.entropy_target).mean())
        alpha = math.exp(float(param.array))
        xp = backend.get_array_module(param.array)
        param.grad = xp.asarray(-alpha * c, dtype=param.array.dtype)
        self.temperature_optimizer.update()

    def update_policy_and_temperature(self, batch: dict[str, Any]) -> None:
        """Reparameterised policy step, then the temperature step."""
        state = batch["state"]
        action, log_prob = _sample_with_log_prob(self.policy(state))
        q1 = self.q_func1(state, action)
        q2 = self.q_func2(state, action)
        q = F.flatten(F.minimum(q1, q2))
        loss = F.mean(self.temperature * log_prob - q)
        self.policy_optimizer.update(lambda: loss)
        if self.entropy_target is not None:
            self.update_temperature(log_prob.array)
        # -log pi(a|s) at a sample is an unbiased estimate of the entropy.
        self.entropy_record.extend(-log_prob.array)

    def update(self, experiences: Any, errors_out: Any = None) -> None:
        """Critics, then policy and temperature, then the target critics."""
        batch = batch_experiences(experiences, self.xp, self.phi, self.gamma)
        self.update_q_func(batch)
        self.update_policy_and_temperature(batch)
        self.sync_target_network()

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_q1", self.q1_record.mean()),
            ("average_q2", self.q2_record.mean()),
            ("average_q_func1_loss", self.q_func1_loss_record.mean()),
            ("average_q_func2_loss", self.q_func2_loss_record.mean()),
            ("n_updates", self.policy_optimizer.t),
            ("average_entropy", self.entropy_record.mean()),
            ("temperature", self.temperature),
        ]
