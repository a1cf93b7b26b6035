"""A3C: asynchronous advantage actor-critic (``chainerrl.agents.A3C``).

See https://arxiv.org/abs/1602.01783. Each worker process owns one ``A3C``
agent. The agent acts with a local copy of the model; every ``t_max`` steps
(or at the end of an episode) it computes n-step advantages, backpropagates
through the local copy, copies the gradients onto the shared model, lets the
(shared) optimizer update it and copies the new parameters back.
:func:`kusari_rl.experiments.train_agent_async` puts the shared model and the
optimizer's states in shared memory and runs the workers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari_rl import agent
from kusari_rl.agents.a2c import A2CModel, _pi_and_v
from kusari_rl.misc.batch_states import batch_states as default_batch_states
from kusari_rl.misc.copy_param import copy_grad, copy_param

__all__ = ["A3C", "A3CModel", "A3CSeparateModel", "A3CSharedModel"]


class A3CModel(A2CModel):
    """A model for A3C: ``pi_and_v(obs) -> (distribution, values)``."""


class A3CSeparateModel(kusari.Chain, A3CModel):
    """A3C model made of a separate policy ``pi`` and V-function ``v``."""

    def __init__(self, pi: kusari.Link, v: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.pi = pi
            self.v = v

    def pi_and_v(self, obs: Any) -> tuple[Any, Any]:
        return self.pi(obs), self.v(obs)


class A3CSharedModel(kusari.Chain, A3CModel):
    """A3C model whose policy ``pi`` and V-function ``v`` read a shared torso."""

    def __init__(self, shared: kusari.Link, pi: kusari.Link, v: kusari.Link) -> None:
        super().__init__()
        with self.init_scope():
            self.shared = shared
            self.pi = pi
            self.v = v

    def pi_and_v(self, obs: Any) -> tuple[Any, Any]:
        h = self.shared(obs)
        return self.pi(h), self.v(h)


class A3C(agent.AttributeSavingMixin, agent.AsyncAgent):
    """Asynchronous advantage actor-critic (one worker's agent).

    Args:
        model: Model with ``pi_and_v`` (shared between processes).
        optimizer: Optimizer set up with ``model``.
        t_max: Steps between updates (the n of the n-step return).
        gamma: Discount factor.
        beta: Weight of the entropy bonus.
        process_idx: Index of the worker (set by the training loop).
        phi: Feature extractor applied to each observation.
        pi_loss_coef: Weight of the policy loss.
        v_loss_coef: Weight of the value loss.
        keep_loss_scale_same: Scale a shorter segment's loss as if it had
            ``t_max`` steps.
        normalize_grad_by_t_max: Divide the loss by the segment length.
        use_average_reward: Use the average-reward formulation (returns of
            ``r - average_reward``).
        average_reward_tau: Step size of the average reward's update.
        act_deterministically: Evaluate with the most probable action.
        average_entropy_decay: Decay of the ``average_entropy`` statistic.
        average_value_decay: Decay of the ``average_value`` statistic.
        batch_states: Function making a batch from observations.
    """

    process_idx: int | None = None
    saved_attributes = ("model", "optimizer")

    def __init__(
        self,
        model: kusari.Link,
        optimizer: kusari.Optimizer,
        t_max: int,
        gamma: float,
        beta: float = 1e-2,
        process_idx: int = 0,
        phi: Callable[[Any], Any] | None = None,
        pi_loss_coef: float = 1.0,
        v_loss_coef: float = 0.5,
        keep_loss_scale_same: bool = False,
        normalize_grad_by_t_max: bool = False,
        use_average_reward: bool = False,
        average_reward_tau: float = 1e-2,
        act_deterministically: bool = False,
        average_entropy_decay: float = 0.999,
        average_value_decay: float = 0.999,
        batch_states: Callable[..., Any] = default_batch_states,
    ) -> None:
        if not isinstance(t_max, int) or t_max <= 0:
            raise ValueError(f"A3C: t_max must be a positive int, got {t_max!r}")
        # The optimizer updates the shared model; acting and backprop use a
        # process-local copy.
        self.shared_model = model
        self.model = copy.deepcopy(model)
        self.optimizer = optimizer
        self.t_max = t_max
        self.gamma = gamma
        self.beta = beta
        self.process_idx = process_idx
        self.phi = phi
        self.pi_loss_coef = pi_loss_coef
        self.v_loss_coef = v_loss_coef
        self.keep_loss_scale_same = keep_loss_scale_same
        self.normalize_grad_by_t_max = normalize_grad_by_t_max
        self.use_average_reward = use_average_reward
        self.average_reward_tau = average_reward_tau
        self.act_deterministically = act_deterministically
        self.average_entropy_decay = average_entropy_decay
        self.average_value_decay = average_value_decay
        self.batch_states = batch_states
        self.xp = model.xp

        self.t = 0
        self.average_reward = 0.0
        self.average_value = 0.0
        self.average_entropy = 0.0
        self._states: list[Any] = []
        self._actions: list[Any] = []
        self._rewards: list[float] = []

    @property
    def shared_attributes(self) -> tuple[str, ...]:
        return ("shared_model", "optimizer")

    def sync_parameters(self) -> None:
        """Copy the shared model's parameters into the local model."""
        copy_param(target_link=self.model, source_link=self.shared_model)

    # ---- acting ------------------------------------------------------------

    def _batch(self, obs: Any) -> Any:
        return self.batch_states([obs], self.xp, self.phi)

    def _act_train(self, obs: Any) -> Any:
        state = self._batch(obs)
        with kusari.no_backprop_mode():
            distrib, value = _pi_and_v(self.model, state)
            action, _, entropy = distrib.sample_arrays(True)
        self._states.append(state)
        self._actions.append(action)
        self.t += 1
        self.average_value += (1 - self.average_value_decay) * (
            float(value.array.reshape(-1)[0]) - self.average_value
        )
        self.average_entropy += (1 - self.average_entropy_decay) * (
            float(entropy[0]) - self.average_entropy
        )
        return kusari.backend.CpuDevice().send(action)[0]

    def _act_eval(self, obs: Any) -> Any:
        with kusari.no_backprop_mode():
            distrib, _ = _pi_and_v(self.model, self._batch(obs))
            a = (
                distrib.most_probable
                if self.act_deterministically
                else distrib.sample()
            )
        return kusari.backend.CpuDevice().send(a.array)[0]

    def _observe_train(self, obs: Any, reward: float, done: bool, end: bool) -> None:
        if len(self._rewards) < len(self._actions):
            self._rewards.append(float(reward))
        if end:
            # Terminal: the return stops. Cut (time limit): bootstrap from V(obs).
            self._update(None if done else self._batch(obs))
        elif len(self._actions) >= self.t_max:
            self._update(self._batch(obs))

    # ---- learning --------------------------------------------------------

    def _update(self, bootstrap_state: Any) -> None:
        n = len(self._actions)
        if n == 0:
            return
        if bootstrap_state is None:
            R = 0.0
        else:
            with kusari.no_backprop_mode():
                _, v = _pi_and_v(self.model, bootstrap_state)
            R = float(v.array.reshape(-1)[0])
        states = self.xp.concatenate(self._states)
        actions = self.xp.concatenate(self._actions)
        distrib, values = _pi_and_v(self.model, states)
        values = F.reshape(values, (n,))
        v_arr = numpy.asarray(kusari.backend.CpuDevice().send(values.array))
        returns, advs = self._n_step_returns(R, v_arr)
        xp = self.xp
        pi_loss = -F.sum(xp.asarray(advs) * distrib.log_prob(actions))
        pi_loss = pi_loss - self.beta * F.sum(distrib.entropy)
        diff = values - xp.asarray(returns)
        v_loss = F.sum(diff * diff) / 2
        loss = self.pi_loss_coef * pi_loss + self.v_loss_coef * v_loss
        if self.keep_loss_scale_same and n < self.t_max:
            loss = loss * (self.t_max / n)
        if self.normalize_grad_by_t_max:
            loss = loss / n

        self.model.cleargrads()
        loss.backward()
        copy_grad(target_link=self.shared_model, source_link=self.model)
        self.optimizer.update()
        self.sync_parameters()
        self._states, self._actions, self._rewards = [], [], []

    def _n_step_returns(
        self, R: float, values: numpy.ndarray
    ) -> tuple[numpy.ndarray, numpy.ndarray]:
        """n-step returns ``R_i = r_i + gamma R_{i+1}`` from ``R``, and advantages."""
        n = len(values)
        returns = numpy.empty(n, numpy.float32)
        advs = numpy.empty(n, numpy.float32)
        for i in range(n - 1, -1, -1):
            R = self._rewards[i] + self.gamma * R
            if self.use_average_reward:
                R -= self.average_reward
            returns[i] = R
            advs[i] = R - values[i]
            if self.use_average_reward:
                self.average_reward += self.average_reward_tau * float(advs[i])
        return returns, advs

    # ---- ChainerRL's and PFRL's conventions ------------------------------

    def act_and_train(self, obs: Any, reward: float) -> Any:
        self._driven_by_and_train = True
        self._observe_train(obs, reward, False, False)
        return self._act_train(obs)

    def stop_episode_and_train(
        self, obs: Any, reward: float, done: bool = False
    ) -> None:
        self._driven_by_and_train = True
        self._observe_train(obs, reward, done, True)

    def act(self, obs: Any) -> Any:
        if self._learning_act():
            return self._act_train(obs)
        return self._act_eval(obs)

    def observe(self, obs: Any, reward: float, done: bool, reset: bool) -> None:
        if self._learning_act():
            self._observe_train(obs, reward, done, done or reset)

    def stop_episode(self) -> None:
        pass

    def load(self, dirname: str) -> None:
        super().load(dirname)
        copy_param(target_link=self.shared_model, source_link=self.model)

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_value", self.average_value),
            ("average_entropy", self.average_entropy),
        ]
