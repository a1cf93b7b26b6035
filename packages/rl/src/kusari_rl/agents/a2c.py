"""A2C: synchronous advantage actor-critic (``chainerrl.agents.A2C``).

See https://arxiv.org/abs/1708.05144.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari_rl import agent
from kusari_rl.agents._eval_average import EvalAverageMixin
from kusari_rl.agents._on_policy import OnPolicyActingMixin, compute_gae
from kusari_rl.misc.batch_states import batch_states as default_batch_states

__all__ = ["A2C", "A2CModel", "A2CSeparateModel"]


class A2CModel(kusari.Link):
    """A model for A2C: ``pi_and_v(obs) -> (distribution, values)``."""

    def pi_and_v(self, obs: Any) -> tuple[Any, Any]:
        """Evaluate the policy and the V-function on a batch of observations."""
        raise TypeError(f"{type(self).__name__} must override pi_and_v(obs)")

    def forward(self, obs: Any) -> tuple[Any, Any]:
        return self.pi_and_v(obs)


class A2CSeparateModel(kusari.Chain, A2CModel):
    """A2C model made of a separate policy ``pi`` and V-function ``v``."""

    def __init__(self, pi: kusari.Link, v: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.pi = pi
            self.v = v

    def pi_and_v(self, obs: Any) -> tuple[Any, Any]:
        return self.pi(obs), self.v(obs)


def _pi_and_v(model: Any, obs: Any) -> tuple[Any, Any]:
    if hasattr(model, "pi_and_v"):
        return model.pi_and_v(obs)
    return model(obs)


class A2C(
    agent.AttributeSavingMixin,
    EvalAverageMixin,
    OnPolicyActingMixin,
    agent.BatchAgent,
):
    """Advantage actor-critic on ``num_processes`` synchronous environments.

    Every ``update_steps`` steps (of all environments at once) the model takes
    one gradient step on ``pi_loss_coef * L_pi + v_loss_coef * L_v -
    entropy_coeff * H`` with n-step (or GAE) advantages. A time-limit cut
    bootstraps from ``V`` of the observation it was cut at.

    Args:
        model: Model with ``pi_and_v(obs) -> (distribution, values)`` (or a
            link returning that pair when called).
        optimizer: Optimizer already set up with ``model``.
        gamma: Discount factor.
        num_processes: Number of environments acting in parallel.
        gpu: GPU device id (None or negative: CPU).
        update_steps: Steps per environment between updates.
        phi: Feature extractor applied to each observation.
        pi_loss_coef: Weight of the policy loss.
        v_loss_coef: Weight of the value loss.
        entropy_coeff: Weight of the entropy bonus.
        use_gae: Use generalized advantage estimation.
        tau: GAE's lambda.
        act_deterministically: Evaluate with the most probable action.
        average_actor_loss_decay: Decay of the ``average_actor`` statistic.
        average_entropy_decay: Decay of the ``average_entropy`` statistic.
        average_value_decay: Decay of the ``average_value`` statistic.
        batch_states: Function making a batch from observations.
        eval_average_decay: Keep an exponential moving average of the
            model's parameters, moved towards them with this decay after
            every update, and act with it outside training
            (``act``/``batch_act``, or inside ``eval_mode()``); collecting
            rollouts and learning still use the live model. None (default):
            evaluation acts with the live model, as in ChainerRL.
        obs_normalizer: Optional ``EmpiricalNormalization`` link applied to
            observations (as PPO's; not in ChainerRL's A2C). The update
            sees each rollout normalised as it was while acting; the
            statistics take the rollout in after the update.
        normalize_advantages: Standardise the advantages of each rollout to
            zero mean and unit standard deviation before the policy loss
            (SB3's ``normalize_advantage``; not in ChainerRL's A2C). The
            value loss keeps the unnormalised returns.
    """

    process_idx = None
    saved_attributes = ("model", "optimizer", "obs_normalizer", "eval_average_model")
    snapshot_attributes: Sequence[str] = (
        *OnPolicyActingMixin.snapshot_attributes,
        "t",
        "average_actor_loss",
        "average_value",
        "average_entropy",
        "eval_average_updates",
    )

    def __init__(
        self,
        model: kusari.Link,
        optimizer: kusari.Optimizer,
        gamma: float,
        num_processes: int,
        gpu: int | None = None,
        update_steps: int = 5,
        phi: Callable[[Any], Any] | None = None,
        pi_loss_coef: float = 1.0,
        v_loss_coef: float = 0.5,
        entropy_coeff: float = 0.01,
        use_gae: bool = False,
        tau: float = 0.95,
        act_deterministically: bool = False,
        average_actor_loss_decay: float = 0.999,
        average_entropy_decay: float = 0.999,
        average_value_decay: float = 0.999,
        batch_states: Callable[..., Any] = default_batch_states,
        eval_average_decay: float | None = None,
        obs_normalizer: kusari.Link | None = None,
        normalize_advantages: bool = False,
    ) -> None:
        if not isinstance(num_processes, int) or num_processes <= 0:
            raise ValueError(
                f"A2C: num_processes must be a positive int, got {num_processes!r}"
            )
        if not isinstance(update_steps, int) or update_steps <= 0:
            raise ValueError(
                f"A2C: update_steps must be a positive int, got {update_steps!r}"
            )
        self.model = model
        self.optimizer = optimizer
        if gpu is not None and gpu >= 0:
            model.to_device(gpu)
            if obs_normalizer is not None:
                obs_normalizer.to_device(gpu)
        self.gpu = gpu
        self.gamma = gamma
        self.num_processes = num_processes
        self.update_steps = update_steps
        self.update_interval = update_steps * num_processes
        self.phi = phi
        self.pi_loss_coef = pi_loss_coef
        self.v_loss_coef = v_loss_coef
        self.entropy_coeff = entropy_coeff
        self.use_gae = use_gae
        self.tau = tau
        self.act_deterministically = act_deterministically
        self.average_actor_loss_decay = average_actor_loss_decay
        self.average_entropy_decay = average_entropy_decay
        self.average_value_decay = average_value_decay
        self.batch_states = batch_states
        self.obs_normalizer = obs_normalizer
        self.normalize_advantages = normalize_advantages
        self.xp = model.xp
        self.t = 0

        self.average_actor_loss = 0.0
        self.average_value = 0.0
        self.average_entropy = 0.0
        # A2C reports running averages from its updates, not acting records.
        self.value_record = None
        self.entropy_record = None
        self._init_acting()
        self._init_eval_average(eval_average_decay)

    def _evaluate(self, states: Any) -> tuple[Any, Any]:
        distrib, values = _pi_and_v(self.model, states)
        return distrib, values.array.reshape(-1)

    def _evaluate_eval(self, states: Any) -> tuple[Any, Any]:
        distrib, values = _pi_and_v(self._eval_model(), states)
        return distrib, values.array.reshape(-1)

    def _value_array(self, states: Any) -> numpy.ndarray:
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            _, values = _pi_and_v(self.model, states)
        return numpy.asarray(kusari.backend.CpuDevice().send(values.array)).reshape(-1)

    def _act_train(self, batch_obs: Sequence[Any]) -> Any:
        if len(batch_obs) != self.num_processes:
            raise ValueError(
                f"A2C: num_processes={self.num_processes} but got "
                f"{len(batch_obs)} observations; make num_processes match the "
                "number of environments"
            )
        self.t += 1
        return super()._act_train(batch_obs)

    def _update_from_rollout(self, data: dict[str, Any]) -> None:
        xp = self.xp
        lambd = self.tau if self.use_gae else 1.0
        advs = compute_gae(
            data["rewards"],
            data["values"],
            data["next_values"],
            data["terminals"],
            data["ends"],
            self.gamma,
            lambd,
        )
        returns = xp.asarray(
            (advs + data["values"]).reshape(-1, 1).astype(numpy.float32)
        )
        states = data["states"]
        if self.obs_normalizer is not None:
            # Normalise with the statistics the actions were chosen under, and
            # only then fold the rollout into them: A2C's one gradient step is
            # the policy gradient at the inputs the policy acted on, and its
            # advantages need V of those same inputs. Statistics updated
            # first (as PPO does before its epochs) move every input, so
            # ``returns - V`` would carry the change of V with the statistics.
            normalized = self.obs_normalizer(states, update=False)
            self.obs_normalizer.experience(states)
            states = normalized
        distrib, values = _pi_and_v(self.model, states)
        log_probs = distrib.log_prob(data["actions"])
        entropy = F.mean(distrib.entropy)
        advantages = returns - values
        value_loss = F.mean(advantages * advantages)
        pi_advantages = advantages.array.reshape(-1)
        if self.normalize_advantages and pi_advantages.size > 1:
            # SB3's form: the unbiased standard deviation, and 1e-8 against a
            # rollout whose advantages are all equal.
            pi_advantages = (pi_advantages - pi_advantages.mean()) / (
                pi_advantages.std(ddof=1) + 1e-8
            )
        actor_loss = -F.mean(pi_advantages * log_probs)
        loss = (
            self.pi_loss_coef * actor_loss
            + self.v_loss_coef * value_loss
            - self.entropy_coeff * entropy
        )
        self.model.cleargrads()
        loss.backward()
        self.optimizer.update()
        self._update_eval_average()

        self.average_actor_loss += (1 - self.average_actor_loss_decay) * (
            float(actor_loss.array) - self.average_actor_loss
        )
        self.average_value += (1 - self.average_value_decay) * (
            float(value_loss.array) - self.average_value
        )
        self.average_entropy += (1 - self.average_entropy_decay) * (
            float(entropy.array) - self.average_entropy
        )

    def stop_episode(self) -> None:
        """Nothing to reset: the rollout survives evaluation episodes."""

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_actor", self.average_actor_loss),
            ("average_value", self.average_value),
            ("average_entropy", self.average_entropy),
        ]
