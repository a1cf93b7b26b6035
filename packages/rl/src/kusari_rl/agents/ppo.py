"""Proximal Policy Optimization (``chainerrl.agents.PPO``).

See https://arxiv.org/abs/1707.06347.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari_rl import agent
from kusari_rl.agents._eval_average import EvalAverageMixin
from kusari_rl.agents._on_policy import (
    OnPolicyActingMixin,
    compute_gae,
    explained_variance,
)
from kusari_rl.agents._recurrent import (
    check_recurrent_model,
    rollout_sequences,
    sequence_minibatches,
)
from kusari_rl.misc.batch_states import batch_states as default_batch_states

__all__ = ["PPO"]


def _mean_or_nan(xs: Any) -> float:
    return float(numpy.mean(xs)) if len(xs) else float("nan")


def _to_device_like(model: kusari.Link, gpu: int | None) -> None:
    if gpu is not None and gpu >= 0:
        model.to_device(gpu)


class PPO(
    agent.AttributeSavingMixin,
    EvalAverageMixin,
    OnPolicyActingMixin,
    agent.BatchAgent,
):
    """Proximal Policy Optimization with a clipped surrogate objective.

    Data from ``update_interval`` transitions (summed over environments) is
    collected with the current policy, advantages are estimated by GAE, and
    the model is trained for ``epochs`` passes of ``minibatch_size``
    minibatches on

    ``-min(r A, clip(r, 1 - eps, 1 + eps) A) + c_v (V - V_target)^2 - c_e H``

    where ``r`` is the probability ratio of the new and the old policy. An
    episode cut by a time limit (``truncated``, ``reset``) is bootstrapped
    with ``V`` of the observation it was cut at; a terminal one is not.

    Args:
        model: Link mapping a batch of observations to
            ``(distribution, values)`` with values of shape ``(batch, 1)``
            (e.g. ``A2CSeparateModel(policy, vfunction)``).
        optimizer: Optimizer already set up with ``model``.
        obs_normalizer: Optional ``EmpiricalNormalization`` link applied to
            observations; it is updated with each collected batch.
        gpu: GPU device id (None or negative: CPU).
        gamma: Discount factor.
        lambd: GAE's lambda.
        phi: Feature extractor applied to each observation.
        value_func_coef: Weight of the value loss.
        entropy_coef: Weight of the entropy bonus.
        update_interval: Transitions collected between updates.
        minibatch_size: Minibatch size.
        epochs: Passes over the collected data per update.
        clip_eps: Clipping range of the probability ratio.
        clip_eps_vf: Clipping range of the value update (None: no clipping).
        standardize_advantages: Standardise advantages over each batch.
        batch_states: Function making a batch from observations.
        recurrent: ``model`` implements
            :class:`~kusari_rl.links.StatelessRecurrent` and returns
            ``((distribution, values), new_state)`` (e.g. a
            :class:`~kusari_rl.links.StatelessRecurrentSequential` ending in a
            :class:`~kusari_rl.links.Branched` policy and value head). Hidden
            states are carried across steps and reset per environment at
            episode ends; updates run the model over the collected
            sequences from the states stored while acting, ``minibatch_size``
            steps per minibatch.
        max_recurrent_sequence_len: With ``recurrent``, the longest sequence
            a rollout is cut into for an update (None: whole episode pieces).
        act_deterministically: ``act`` in evaluation picks the most probable
            action instead of sampling.
        value_stats_window: Window of the ``average_value`` statistic.
        entropy_stats_window: Window of the ``average_entropy`` statistic.
        value_loss_stats_window: Window of the ``average_value_loss`` statistic.
        policy_loss_stats_window: Window of the ``average_policy_loss``
            statistic.
        eval_average_decay: Keep an exponential moving average of the
            model's parameters, moved towards them with this decay after
            every optimizer step, and act with it outside training
            (``act``/``batch_act``, or inside ``eval_mode()``); collecting
            rollouts and learning still use the live model. None (default):
            evaluation acts with the live model, as in ChainerRL.

    Example:
        >>> import numpy as np, kusari
        >>> from kusari_rl import policies, v_functions
        >>> from kusari_rl.agents.a2c import A2CSeparateModel
        >>> model = A2CSeparateModel(
        ...     policies.FCSoftmaxPolicy(4, 2, 1, 16), v_functions.FCVFunction(4, 1, 16)
        ... )
        >>> opt = kusari.optimizers.Adam(3e-4).setup(model)
        >>> agent = PPO(model, opt, update_interval=64, minibatch_size=16)
        >>> int(agent.act_and_train(np.zeros(4, np.float32), 0.0)) in (0, 1)
        True
    """

    saved_attributes = ("model", "optimizer", "obs_normalizer", "eval_average_model")
    snapshot_attributes: Sequence[str] = (
        *OnPolicyActingMixin.snapshot_attributes,
        "n_updates",
        "explained_variance",
        "value_record",
        "entropy_record",
        "value_loss_record",
        "policy_loss_record",
        "eval_average_updates",
    )

    def __init__(
        self,
        model: kusari.Link,
        optimizer: kusari.Optimizer,
        obs_normalizer: kusari.Link | None = None,
        gpu: int | None = None,
        gamma: float = 0.99,
        lambd: float = 0.95,
        phi: Callable[[Any], Any] | None = None,
        value_func_coef: float = 1.0,
        entropy_coef: float = 0.01,
        update_interval: int = 2048,
        minibatch_size: int = 64,
        epochs: int = 10,
        clip_eps: float = 0.2,
        clip_eps_vf: float | None = None,
        standardize_advantages: bool = True,
        batch_states: Callable[..., Any] = default_batch_states,
        recurrent: bool = False,
        max_recurrent_sequence_len: int | None = None,
        act_deterministically: bool = False,
        value_stats_window: int = 1000,
        entropy_stats_window: int = 1000,
        value_loss_stats_window: int = 100,
        policy_loss_stats_window: int = 100,
        eval_average_decay: float | None = None,
    ) -> None:
        if recurrent:
            check_recurrent_model("PPO", model)
        if max_recurrent_sequence_len is not None and max_recurrent_sequence_len <= 0:
            raise ValueError(
                "PPO: max_recurrent_sequence_len must be positive or None, got "
                f"{max_recurrent_sequence_len!r}"
            )
        for name, value in (
            ("update_interval", update_interval),
            ("minibatch_size", minibatch_size),
            ("epochs", epochs),
        ):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"PPO: {name} must be a positive int, got {value!r}")
        self.model = model
        self.optimizer = optimizer
        self.obs_normalizer = obs_normalizer
        _to_device_like(model, gpu)
        if obs_normalizer is not None:
            _to_device_like(obs_normalizer, gpu)
        self.gamma = gamma
        self.lambd = lambd
        self.phi = phi
        self.value_func_coef = value_func_coef
        self.entropy_coef = entropy_coef
        self.update_interval = update_interval
        self.minibatch_size = minibatch_size
        self.epochs = epochs
        self.clip_eps = clip_eps
        self.clip_eps_vf = clip_eps_vf
        self.standardize_advantages = standardize_advantages
        self.batch_states = batch_states
        self.recurrent = recurrent
        self.max_recurrent_sequence_len = max_recurrent_sequence_len
        self.act_deterministically = act_deterministically
        self.xp = model.xp

        self.value_record: collections.deque[float] = collections.deque(
            maxlen=value_stats_window
        )
        self.entropy_record: collections.deque[float] = collections.deque(
            maxlen=entropy_stats_window
        )
        self.value_loss_record: collections.deque[float] = collections.deque(
            maxlen=value_loss_stats_window
        )
        self.policy_loss_record: collections.deque[float] = collections.deque(
            maxlen=policy_loss_stats_window
        )
        self.explained_variance = float("nan")
        self.n_updates = 0
        self._init_acting()
        self._init_eval_average(eval_average_decay)

    # ---- model evaluation ------------------------------------------------

    def _evaluate(self, states: Any) -> tuple[Any, Any]:
        distrib, values = self.model(states)
        return distrib, values.array.reshape(-1)

    def _evaluate_eval(self, states: Any) -> tuple[Any, Any]:
        distrib, values = self._eval_model()(states)
        return distrib, values.array.reshape(-1)

    def _value_array(self, states: Any) -> numpy.ndarray:
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            _, values = self.model(states)
        return numpy.asarray(kusari.backend.CpuDevice().send(values.array)).reshape(-1)

    # ---- learning --------------------------------------------------------

    def _update_from_rollout(self, data: dict[str, Any]) -> None:
        xp = self.xp
        advs = compute_gae(
            data["rewards"],
            data["values"],
            data["next_values"],
            data["terminals"],
            data["ends"],
            self.gamma,
            self.lambd,
        ).reshape(-1)
        vs_pred = data["values"].reshape(-1).astype(numpy.float32)
        vs_teacher = advs + vs_pred
        self.explained_variance = explained_variance(vs_teacher, vs_pred)

        states = data["states"]
        if self.obs_normalizer is not None:
            self.obs_normalizer.experience(states)
            states = self.obs_normalizer(states, update=False)
        if self.standardize_advantages:
            advs = (advs - advs.mean()) / (advs.std() + 1e-8)

        actions = data["actions"]
        advs_d = xp.asarray(advs)
        log_probs_old = xp.asarray(data["log_probs"].astype(numpy.float32))
        vs_pred_old = xp.asarray(vs_pred[:, None])
        vs_teacher_d = xp.asarray(vs_teacher[:, None])
        if self.recurrent:
            self._update_recurrent(
                data, states, advs_d, log_probs_old, vs_pred_old, vs_teacher_d
            )
            self.n_updates += 1
            return
        n = len(advs)
        for _ in range(self.epochs):
            perm = numpy.random.permutation(n)
            for start in range(0, n, self.minibatch_size):
                idx = perm[start : start + self.minibatch_size]
                idx_d = xp.asarray(idx)
                distribs, vs = self.model(states[idx_d])
                loss = self._lossfun(
                    distribs.entropy,
                    vs,
                    distribs.log_prob(actions[idx_d]),
                    vs_pred_old=vs_pred_old[idx_d],
                    log_probs_old=log_probs_old[idx_d],
                    advs=advs_d[idx_d],
                    vs_teacher=vs_teacher_d[idx_d],
                )
                self.model.cleargrads()
                loss.backward()
                self.optimizer.update()
                self._update_eval_average()
        self.n_updates += 1

    def _update_recurrent(
        self,
        data: dict[str, Any],
        states: Any,
        advs: Any,
        log_probs_old: Any,
        vs_pred_old: Any,
        vs_teacher: Any,
    ) -> None:
        """Epochs of minibatch updates over the rollout's sequences.

        Row ``t * n_envs + e`` of the flat arrays is step ``t`` of env ``e``;
        every sequence restarts from the hidden state stored for its first
        step while acting.
        """
        xp = self.xp
        n_envs = data["rewards"].shape[1]
        stored = data["recurrent_states"]
        seqs = rollout_sequences(data["ends"], self.max_recurrent_sequence_len)
        model = self.model
        for _ in range(self.epochs):
            for batch in sequence_minibatches(seqs, self.minibatch_size, numpy.random):
                rows = [numpy.arange(t0, t1) * n_envs + e for e, t0, t1 in batch]
                flat = xp.asarray(numpy.concatenate(rows))
                init = model.concatenate_recurrent_states(
                    [
                        model.get_recurrent_state_at(stored[t0], e, True)
                        if stored[t0] is not None
                        else None
                        for e, t0, _ in batch
                    ]
                )
                seq_states = [states[xp.asarray(r)] for r in rows]
                (distribs, vs), _ = model.n_step_forward(seq_states, init, "concat")
                loss = self._lossfun(
                    distribs.entropy,
                    vs,
                    distribs.log_prob(data["actions"][flat]),
                    vs_pred_old=vs_pred_old[flat],
                    log_probs_old=log_probs_old[flat],
                    advs=advs[flat],
                    vs_teacher=vs_teacher[flat],
                )
                model.cleargrads()
                loss.backward()
                self.optimizer.update()
                self._update_eval_average()

    def _lossfun(
        self,
        entropy: Any,
        vs_pred: Any,
        log_probs: Any,
        vs_pred_old: Any,
        log_probs_old: Any,
        advs: Any,
        vs_teacher: Any,
    ) -> kusari.Variable:
        """PPO's loss on one minibatch (all arguments batched along axis 0)."""
        ratio = F.exp(log_probs - log_probs_old)
        clipped = F.clip(ratio, 1.0 - self.clip_eps, 1.0 + self.clip_eps)
        loss_policy = -F.mean(F.minimum(ratio * advs, clipped * advs))
        if self.clip_eps_vf is None:
            loss_value = F.mean_squared_error(vs_pred, vs_teacher)
        else:
            vs_clipped = vs_pred_old + F.clip(
                vs_pred - vs_pred_old, -self.clip_eps_vf, self.clip_eps_vf
            )
            loss_value = F.mean(
                F.maximum(
                    F.square(vs_pred - vs_teacher), F.square(vs_clipped - vs_teacher)
                )
            )
        loss_entropy = -F.mean(entropy)
        self.value_loss_record.append(float(loss_value.array))
        self.policy_loss_record.append(float(loss_policy.array))
        return (
            loss_policy
            + self.value_func_coef * loss_value
            + self.entropy_coef * loss_entropy
        )

    def stop_episode(self) -> None:
        """End an evaluation episode: only a recurrent model's evaluation
        state is reset; the rollout survives evaluation episodes."""
        self.test_recurrent_states = None

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [
            ("average_value", _mean_or_nan(self.value_record)),
            ("average_entropy", _mean_or_nan(self.entropy_record)),
            ("average_value_loss", _mean_or_nan(self.value_loss_record)),
            ("average_policy_loss", _mean_or_nan(self.policy_loss_record)),
            ("n_updates", self.optimizer.t),
            ("explained_variance", self.explained_variance),
        ]
