"""Rollout storage and advantage estimation shared by the on-policy agents.

Transitions are kept as one array per time step covering every environment
(``(n_envs, ...)``), never as per-transition objects, so that acting in a
vectorised environment costs one forward pass and a few array appends.

Episode ends come in two kinds, and they are treated differently:

* a *terminal* state (Gymnasium's ``terminated``) is worth nothing: the
  return stops there;
* a *cut* (``truncated``, a time limit, or the end of the data collected so
  far) is not the end of the task: the return is completed with the value
  ``V(s')`` of the observation the episode was cut at.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import kusari
from kusari import backend
from kusari_rl.agents._recurrent import (
    batch_reset_recurrent_states_when_episodes_end,
    unwrap_recurrent_state,
)

__all__ = ["OnPolicyActingMixin", "Rollout", "compute_gae", "explained_variance"]


def compute_gae(
    rewards: Any,
    values: Any,
    next_values: Any,
    terminals: Any,
    ends: Any,
    gamma: float,
    lambd: float,
) -> numpy.ndarray:
    """Generalized advantage estimates for a ``(T, n_envs)`` rollout.

    ``delta_t = r_t + gamma * (1 - terminal_t) * next_v_t - v_t`` and
    ``A_t = delta_t + gamma * lambd * (1 - end_t) * A_{t+1}`` with
    ``A_T = 0``. ``next_v_t`` is the value of the observation reached at step
    ``t``; it is ignored where ``terminal_t``. ``end_t`` marks the last step of
    an episode, terminal or cut (time limit); after a cut the advantage is
    still bootstrapped from ``next_v_t``.

    With ``lambd=1`` this is the bootstrapped discounted return minus ``v_t``
    (A2C/A3C's n-step advantage).

    Args:
        rewards: ``(T, n)`` rewards.
        values: ``(T, n)`` values ``V(s_t)``.
        next_values: ``(T, n)`` values ``V(s_{t+1})`` of the same episode.
        terminals: ``(T, n)`` bools, true where ``s_{t+1}`` is terminal.
        ends: ``(T, n)`` bools, true where the episode ended at step ``t``.
        gamma: Discount factor.
        lambd: GAE's lambda.

    Returns:
        ``(T, n)`` float32 advantages (NumPy).

    Example:
        >>> import numpy as np
        >>> z = np.zeros((2, 1))
        >>> compute_gae(np.ones((2, 1)), z, z, z > 0, z > 0, 0.5, 1.0).ravel()
        array([1.5, 1. ], dtype=float32)
    """
    rewards = numpy.asarray(rewards, numpy.float64)
    values = numpy.asarray(values, numpy.float64)
    next_values = numpy.asarray(next_values, numpy.float64)
    cont = 1.0 - numpy.asarray(terminals, numpy.float64)
    carry = gamma * lambd * (1.0 - numpy.asarray(ends, numpy.float64))
    deltas = rewards + gamma * cont * next_values - values
    adv = numpy.empty_like(deltas)
    acc = numpy.zeros(deltas.shape[1:])
    for t in range(deltas.shape[0] - 1, -1, -1):
        acc = deltas[t] + carry[t] * acc
        adv[t] = acc
    return adv.astype(numpy.float32)


def explained_variance(targets: Any, predictions: Any) -> float:
    """``1 - Var[targets - predictions] / Var[targets]`` (NaN if ``Var = 0``)."""
    var_t = float(numpy.var(targets))
    if var_t == 0:
        return float("nan")
    return float(1.0 - numpy.var(numpy.asarray(targets) - predictions) / var_t)


class Rollout:
    """Steps collected since the last update, one array per step for all envs."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.states: list[Any] = []
        self.actions: list[Any] = []
        self.log_probs: list[numpy.ndarray] = []
        self.values: list[numpy.ndarray] = []
        self.rewards: list[numpy.ndarray] = []
        self.terminals: list[numpy.ndarray] = []
        self.ends: list[numpy.ndarray] = []
        # V(s') where the episode ended at this step (0 elsewhere).
        self.end_values: list[numpy.ndarray] = []
        # Recurrent models only: the batched hidden state before each step.
        self.recurrent_states: list[Any] = []
        self.n_envs: int | None = None

    @property
    def n_steps(self) -> int:
        return len(self.rewards)

    def __len__(self) -> int:
        return self.n_steps * (self.n_envs or 0)

    def assemble(self, last_values: numpy.ndarray) -> dict[str, Any]:
        """Stack the steps into ``(T, n)`` arrays; ``last_values = V(s_T)``."""
        values = numpy.stack(self.values)
        next_values = numpy.empty_like(values)
        next_values[:-1] = values[1:]
        next_values[-1] = last_values
        ends = numpy.stack(self.ends)
        end_values = numpy.stack(self.end_values)
        next_values = numpy.where(ends, end_values, next_values)
        xp = backend.get_array_module(self.states[0])
        return {
            "states": xp.concatenate(self.states),
            "actions": xp.concatenate(self.actions),
            "log_probs": numpy.concatenate(self.log_probs),
            "values": values,
            "next_values": next_values,
            "rewards": numpy.stack(self.rewards),
            "terminals": numpy.stack(self.terminals),
            "ends": ends,
            "recurrent_states": self.recurrent_states,
        }


def _to_numpy(x: Any) -> numpy.ndarray:
    return numpy.asarray(backend.CpuDevice().send(x))


class OnPolicyActingMixin(metaclass=ABCMeta):
    """Acting and recording for on-policy agents, in both calling conventions.

    The agent supplies ``_evaluate(states) -> (distribution, values (n,))``
    and ``_value_array(states) -> values (n,)`` on normalised batches,
    ``_update_from_rollout(data)``, ``update_interval``, and the attributes
    ``phi``, ``batch_states``, ``obs_normalizer``, ``xp`` and
    ``act_deterministically``. Learning happens once the rollout holds
    ``update_interval`` transitions.

    With ``recurrent`` true, ``model(states, recurrent_state)`` returns
    ``((distribution, values), new_state)`` (a
    :class:`~kusari_rl.links.StatelessRecurrent`); the hidden states of the
    training and evaluation environments are carried across steps, reset
    per environment when its episode ends, and the state before every
    collected step is kept in the rollout.
    """

    recurrent: bool = False
    model: Any
    # Acting state a resumable snapshot keeps (see experiments.snapshot): the
    # steps collected since the last update and the step awaiting its reward,
    # so that a run resumed mid-rollout continues exactly.
    snapshot_attributes: Sequence[str] = (
        "_rollout",
        "_pending",
        "train_recurrent_states",
    )

    phi: Callable[[Any], Any] | None
    batch_states: Callable[..., Any]
    obs_normalizer: Any
    xp: Any
    act_deterministically: bool
    update_interval: int
    training: bool
    _driven_by_and_train: bool
    _learning_act: Callable[[], bool]
    # Deques that collect acting statistics, or None to skip them.
    value_record: Any
    entropy_record: Any

    def _init_acting(self) -> None:
        self._rollout = Rollout()
        self._pending: tuple[Any, Any, numpy.ndarray, numpy.ndarray, Any] | None = None
        self.train_recurrent_states: Any = None
        self.test_recurrent_states: Any = None

    # ---- hooks ----------------------------------------------------------

    @abstractmethod
    def _evaluate(self, states: Any) -> tuple[Any, Any]:
        """``(distribution, values as an (n,) array)`` for a normalised batch."""

    def _evaluate_eval(self, states: Any) -> tuple[Any, Any]:
        """:meth:`_evaluate` for acting outside training (an agent with an
        evaluation model, e.g. a weight average, overrides it)."""
        return self._evaluate(states)

    def _eval_model(self) -> Any:
        """The (recurrent) model that acts outside training."""
        return self.model

    @abstractmethod
    def _value_array(self, states: Any) -> numpy.ndarray:
        """``V(states)`` as a NumPy ``(n,)`` array, without a graph."""

    @abstractmethod
    def _update_from_rollout(self, data: dict[str, Any]) -> None:
        """Learn from the assembled rollout (see :meth:`Rollout.assemble`)."""

    # ---- helpers --------------------------------------------------------

    def _batch(self, batch_obs: Sequence[Any]) -> Any:
        return self.batch_states(batch_obs, self.xp, self.phi)

    def _evaluate_step(self, states: Any, train: bool) -> tuple[Any, Any]:
        """:meth:`_evaluate`, advancing a recurrent model's hidden state."""
        if not self.recurrent:
            return self._evaluate(states) if train else self._evaluate_eval(states)
        key = "train_recurrent_states" if train else "test_recurrent_states"
        model = self.model if train else self._eval_model()
        (distrib, values), rs = model(states, getattr(self, key))
        setattr(self, key, unwrap_recurrent_state(rs))
        return distrib, values.array.reshape(-1)

    def _values_now(self, batch_obs: Sequence[Any], idx: Any = None) -> numpy.ndarray:
        """``V`` of (the entries ``idx`` of) ``batch_obs``, continuing the
        training hidden states without advancing them."""
        if idx is not None:
            batch_obs = [batch_obs[int(i)] for i in idx]
        states = self._normalize(self._batch(batch_obs))
        if not self.recurrent:
            return self._value_array(states)
        rs = self.train_recurrent_states
        if idx is not None and rs is not None:
            rs = self.model.get_recurrent_state_at(rs, numpy.asarray(idx), True)
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            (_, values), _ = self.model(states, rs)
        return _to_numpy(values.array).reshape(-1)

    def _normalize(self, states: Any) -> Any:
        if self.obs_normalizer is None:
            return states
        return self.obs_normalizer(states, update=False)

    def _act_train(self, batch_obs: Sequence[Any]) -> Any:
        states = self._batch(batch_obs)
        if isinstance(states, tuple):
            raise TypeError(
                f"{type(self).__name__}: phi returned a tuple per observation; "
                "on-policy agents store one array per observation, so make phi "
                "return a single (e.g. concatenated) array"
            )
        rs_before = self.train_recurrent_states
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            distrib, values = self._evaluate_step(self._normalize(states), train=True)
            action, log_prob, entropy = distrib.sample_arrays(
                self.entropy_record is not None
            )
        if entropy is not None:
            self.entropy_record.extend(_to_numpy(entropy).tolist())
        values_np = _to_numpy(values)
        if self.value_record is not None:
            self.value_record.extend(values_np.tolist())
        self._pending = (states, action, _to_numpy(log_prob), values_np, rs_before)
        return _to_numpy(action)

    def _act_eval(self, batch_obs: Sequence[Any]) -> Any:
        states = self._normalize(self._batch(batch_obs))
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            distrib, _ = self._evaluate_step(states, train=False)
            if self.act_deterministically:
                action = distrib.most_probable.array
            else:
                action = distrib.sample().array
        return _to_numpy(action)

    def _observe_train(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Any,
        batch_end: Any,
    ) -> None:
        if self._pending is None:
            return
        states, action, log_prob, values, rs_before = self._pending
        self._pending = None
        n = len(values)
        roll = self._rollout
        if roll.n_envs is None:
            roll.n_envs = n
        elif roll.n_envs != n:
            raise ValueError(
                f"{type(self).__name__}: got {n} environments, but the rollout "
                f"being collected has {roll.n_envs}; keep the number of "
                "environments fixed during training"
            )
        ends = numpy.asarray(batch_end, bool)
        terminals = numpy.asarray(batch_done, bool)
        end_values = numpy.zeros(n, numpy.float32)
        # V(s') is needed where an episode was cut (not where it terminated);
        # elsewhere the next step's own value serves.
        cut = ends & ~terminals
        if cut.any():
            idx = numpy.flatnonzero(cut)
            end_values[idx] = self._values_now(batch_obs, idx)
        roll.states.append(states)
        roll.actions.append(action)
        roll.log_probs.append(log_prob)
        roll.values.append(values)
        roll.rewards.append(numpy.asarray(batch_reward, numpy.float32))
        roll.terminals.append(terminals)
        roll.ends.append(ends)
        roll.end_values.append(end_values)
        if self.recurrent:
            roll.recurrent_states.append(rs_before)
        if len(roll) >= self.update_interval:
            last = self._values_now(batch_obs)
            data = roll.assemble(last)
            roll.clear()
            self._update_from_rollout(data)
        if self.recurrent:
            self.train_recurrent_states = (
                batch_reset_recurrent_states_when_episodes_end(
                    self.model, terminals, ends, self.train_recurrent_states
                )
            )

    # ---- ChainerRL's convention ----------------------------------------

    def act_and_train(self, obs: Any, reward: float) -> Any:
        self._driven_by_and_train = True
        self._observe_train([obs], [reward], [False], [False])
        return self._act_train([obs])[0]

    def stop_episode_and_train(
        self, obs: Any, reward: float, done: bool = False
    ) -> None:
        self._driven_by_and_train = True
        self._observe_train([obs], [reward], [done], [True])

    def batch_act_and_train(self, batch_obs: Sequence[Any]) -> Any:
        self._driven_by_and_train = True
        return self._act_train(batch_obs)

    def batch_observe_and_train(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        self._driven_by_and_train = True
        ends = numpy.logical_or(batch_done, batch_reset)
        self._observe_train(batch_obs, batch_reward, batch_done, ends)

    # ---- shared / PFRL's convention ---------------------------------------

    def act(self, obs: Any) -> Any:
        if self._learning_act():
            return self._act_train([obs])[0]
        return self._act_eval([obs])[0]

    def observe(self, obs: Any, reward: float, done: bool, reset: bool) -> None:
        if self._learning_act():
            self._observe_train([obs], [reward], [done], [done or reset])
        elif done or reset:
            self.test_recurrent_states = None

    def batch_act(self, batch_obs: Sequence[Any]) -> Any:
        if self._learning_act():
            return self._act_train(batch_obs)
        return self._act_eval(batch_obs)

    def batch_observe(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        if self._learning_act():
            ends = numpy.logical_or(batch_done, batch_reset)
            self._observe_train(batch_obs, batch_reward, batch_done, ends)
        elif self.recurrent:
            self.test_recurrent_states = batch_reset_recurrent_states_when_episodes_end(
                self.model, batch_done, batch_reset, self.test_recurrent_states
            )
