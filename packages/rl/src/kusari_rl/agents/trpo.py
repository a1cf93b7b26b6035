"""Trust Region Policy Optimization (``chainerrl.agents.TRPO``).

See https://arxiv.org/abs/1502.05477 and, for GAE, https://arxiv.org/abs/1506.02438.

The policy step solves ``F x = g`` (``F``: Fisher matrix of the policy, ``g``:
gradient of the surrogate gain) by conjugate gradient, using only products
``F v``. Those are Hessian-vector products of the mean KL divergence between
the old and the new policy, obtained by double backprop, so any distribution
with a differentiable ``kl`` works. The step is scaled to the KL radius
``max_kl`` and shortened by a backtracking line search until the gain improves
and the KL constraint holds.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari_rl import agent
from kusari_rl.agents._on_policy import (
    OnPolicyActingMixin,
    compute_gae,
    explained_variance,
)
from kusari_rl.misc.batch_states import batch_states as default_batch_states

__all__ = ["TRPO", "conjugate_gradient"]


def conjugate_gradient(
    A_product_func: Callable[[Any], Any],
    b: Any,
    tol: float = 1e-10,
    max_iter: int = 10,
) -> Any:
    """Approximately solve ``A x = b`` for symmetric positive-definite ``A``.

    Args:
        A_product_func: ``v -> A v``.
        b: Right-hand side (1-D array).
        tol: Stop once the squared residual norm falls below it.
        max_iter: Maximum number of iterations (exact after ``len(b)`` in
            exact arithmetic).

    Returns:
        The solution estimate (same array type as ``b``).

    Example:
        >>> import numpy as np
        >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
        >>> np.round(conjugate_gradient(lambda v: A @ v, np.array([1.0, 2.0])), 4)
        array([0.0909, 0.6364])
    """
    x = b * 0
    r = b.copy()
    p = r.copy()
    rr = float((r * r).sum())
    for _ in range(max_iter):
        if rr < tol:
            break
        Ap = A_product_func(p)
        alpha = rr / float((p * Ap).sum())
        x = x + alpha * p
        r = r - alpha * Ap
        rr_new = float((r * r).sum())
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x


def _flat(arrays: Sequence[Any], xp: Any) -> Any:
    return xp.concatenate([a.ravel() for a in arrays])


def _flat_grads(
    outputs: Any, params: list[kusari.Parameter], double: bool = False
) -> list[Any]:
    grads = kusari.grad([outputs], params, enable_double_backprop=double)
    out = []
    for g, p in zip(grads, params):
        if g is None:
            g = kusari.Variable(p.xp.zeros_like(p.array))
        out.append(g)
    return out


class TRPO(agent.AttributeSavingMixin, OnPolicyActingMixin, agent.BatchAgent):
    """Trust Region Policy Optimization with a separately trained V-function.

    Args:
        policy: Policy link (observations -> distribution with a
            differentiable ``kl``).
        vf: V-function link (observations -> ``(batch, 1)``).
        vf_optimizer: Optimizer already set up with ``vf``.
        obs_normalizer: Optional ``EmpiricalNormalization`` of observations.
        gpu: GPU device id (None or negative: CPU).
        gamma: Discount factor.
        lambd: GAE's lambda.
        phi: Feature extractor applied to each observation.
        entropy_coef: Weight of the entropy bonus in the surrogate gain.
        update_interval: Transitions collected between updates.
        max_kl: KL radius of the trust region.
        vf_epochs: Passes over the data when fitting the V-function.
        vf_batch_size: Minibatch size for fitting the V-function.
        standardize_advantages: Standardise advantages over each batch.
        batch_states: Function making a batch from observations.
        recurrent: Recurrent models are not supported (must be False).
        max_recurrent_sequence_len: Unused (recurrent models only).
        conjugate_gradient_max_iter: Iterations of conjugate gradient.
        conjugate_gradient_damping: ``d`` in ``(F + d I) x = g``.
        act_deterministically: Evaluate with the most probable action.
        max_grad_norm: Clip the policy gradient to this L2 norm (None: off).
        value_stats_window: Window of the ``average_value`` statistic.
        entropy_stats_window: Window of the ``average_entropy`` statistic.
        kl_stats_window: Window of the ``average_kl`` statistic.
        policy_step_size_stats_window: Window of the
            ``average_policy_step_size`` statistic.
    """

    saved_attributes = ("policy", "vf", "vf_optimizer", "obs_normalizer")
    snapshot_attributes: Sequence[str] = (
        *OnPolicyActingMixin.snapshot_attributes,
        "explained_variance",
        "n_policy_updates",
        "value_record",
        "entropy_record",
        "kl_record",
        "policy_step_size_record",
    )

    def __init__(
        self,
        policy: kusari.Link,
        vf: kusari.Link,
        vf_optimizer: kusari.Optimizer,
        obs_normalizer: kusari.Link | None = None,
        gpu: int | None = None,
        gamma: float = 0.99,
        lambd: float = 0.95,
        phi: Callable[[Any], Any] | None = None,
        entropy_coef: float = 0.01,
        update_interval: int = 2048,
        max_kl: float = 0.01,
        vf_epochs: int = 3,
        vf_batch_size: int = 64,
        standardize_advantages: bool = True,
        batch_states: Callable[..., Any] = default_batch_states,
        recurrent: bool = False,
        max_recurrent_sequence_len: int | None = None,
        conjugate_gradient_max_iter: int = 10,
        conjugate_gradient_damping: float = 1e-2,
        act_deterministically: bool = False,
        max_grad_norm: float | None = None,
        value_stats_window: int = 1000,
        entropy_stats_window: int = 1000,
        kl_stats_window: int = 100,
        policy_step_size_stats_window: int = 100,
    ) -> None:
        if recurrent:
            raise ValueError(
                "TRPO: recurrent=True is not supported by kusari-rl; use a "
                "feed-forward policy"
            )
        if vf_optimizer.target is not vf:
            raise ValueError(
                "TRPO: vf_optimizer must be set up with vf "
                "(call vf_optimizer.setup(vf) first)"
            )
        self.policy = policy
        self.vf = vf
        self.vf_optimizer = vf_optimizer
        self.obs_normalizer = obs_normalizer
        if gpu is not None and gpu >= 0:
            for link in (policy, vf, obs_normalizer):
                if link is not None:
                    link.to_device(gpu)
        self.gamma = gamma
        self.lambd = lambd
        self.phi = phi
        self.entropy_coef = entropy_coef
        self.update_interval = update_interval
        self.max_kl = max_kl
        self.vf_epochs = vf_epochs
        self.vf_batch_size = vf_batch_size
        self.standardize_advantages = standardize_advantages
        self.batch_states = batch_states
        self.recurrent = recurrent
        self.max_recurrent_sequence_len = max_recurrent_sequence_len
        self.conjugate_gradient_max_iter = conjugate_gradient_max_iter
        self.conjugate_gradient_damping = conjugate_gradient_damping
        self.act_deterministically = act_deterministically
        self.max_grad_norm = max_grad_norm
        self.xp = policy.xp

        self.value_record: collections.deque[float] = collections.deque(
            maxlen=value_stats_window
        )
        self.entropy_record: collections.deque[float] = collections.deque(
            maxlen=entropy_stats_window
        )
        self.kl_record: collections.deque[float] = collections.deque(
            maxlen=kl_stats_window
        )
        self.policy_step_size_record: collections.deque[float] = collections.deque(
            maxlen=policy_step_size_stats_window
        )
        self.explained_variance = float("nan")
        self.n_policy_updates = 0
        self._init_acting()

    # ---- model evaluation ------------------------------------------------

    def _evaluate(self, states: Any) -> tuple[Any, Any]:
        return self.policy(states), self.vf(states).array.reshape(-1)

    def _value_array(self, states: Any) -> numpy.ndarray:
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            values = self.vf(states)
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
        self._update_vf(states, xp.asarray(vs_teacher[:, None]))
        self._update_policy(states, data["actions"], xp.asarray(advs))

    def _update_vf(self, states: Any, vs_teacher: Any) -> None:
        n = len(vs_teacher)
        for _ in range(self.vf_epochs):
            perm = self.xp.asarray(numpy.random.permutation(n))
            for start in range(0, n, self.vf_batch_size):
                idx = perm[start : start + self.vf_batch_size]
                loss = F.mean_squared_error(self.vf(states[idx]), vs_teacher[idx])
                self.vf.cleargrads()
                loss.backward()
                self.vf_optimizer.update()

    def _gain(self, distrib: Any, actions: Any, log_probs_old: Any, advs: Any) -> Any:
        ratio = F.exp(distrib.log_prob(actions) - log_probs_old)
        return F.mean(ratio * advs) + self.entropy_coef * F.mean(distrib.entropy)

    def _update_policy(self, states: Any, actions: Any, advs: Any) -> None:
        xp = self.xp
        params = [p for p in self.policy.params() if p.array is not None]
        distrib = self.policy(states)
        distrib_old = distrib.copy()
        log_probs_old = distrib_old.log_prob(actions).array
        gain = self._gain(distrib, actions, log_probs_old, advs)
        grads = _flat_grads(gain, params)
        flat_grad = _flat([g.array for g in grads], xp)
        if self.max_grad_norm is not None:
            norm = float(xp.linalg.norm(flat_grad))
            if norm > self.max_grad_norm:
                flat_grad = flat_grad * (self.max_grad_norm / norm)

        # Gradient of the mean KL, kept differentiable for Fisher-vector products.
        kl = F.mean(distrib_old.kl(self.policy(states)))
        kl_grads = _flat_grads(kl, params, double=True)
        flat_kl_grad = F.concat([F.flatten(g) for g in kl_grads], axis=0)
        damping = self.conjugate_gradient_damping

        def fisher_vector_product(v: Any) -> Any:
            gv = F.sum(flat_kl_grad * v)
            hv = _flat_grads(gv, params)
            return _flat([h.array for h in hv], xp) + damping * v

        direction = conjugate_gradient(
            fisher_vector_product, flat_grad, max_iter=self.conjugate_gradient_max_iter
        )
        dfd = float((direction * fisher_vector_product(direction)).sum())
        if not numpy.isfinite(dfd) or dfd <= 0:
            return
        full_step = direction * numpy.sqrt(2 * self.max_kl / dfd)
        self._line_search(
            params,
            full_step,
            states,
            actions,
            log_probs_old,
            advs,
            distrib_old,
            float(gain.array),
        )
        self.n_policy_updates += 1

    def _line_search(
        self,
        params: list[kusari.Parameter],
        full_step: Any,
        states: Any,
        actions: Any,
        log_probs_old: Any,
        advs: Any,
        distrib_old: Any,
        gain_old: float,
        max_backtracks: int = 10,
    ) -> None:
        old = [p.array.copy() for p in params]
        sizes = [p.size for p in params]
        offsets = numpy.cumsum([0, *sizes])
        step_size = 1.0
        for _ in range(max_backtracks + 1):
            step = full_step * step_size
            for p, o, a, b in zip(params, old, offsets[:-1], offsets[1:]):
                p.array[...] = o + step[a:b].reshape(o.shape)
            with kusari.no_backprop_mode():
                distrib = self.policy(states)
                gain = float(self._gain(distrib, actions, log_probs_old, advs).array)
                kl = float(F.mean(distrib_old.kl(distrib)).array)
            if numpy.isfinite(gain) and numpy.isfinite(kl):
                if gain > gain_old and kl <= self.max_kl:
                    self.kl_record.append(kl)
                    self.policy_step_size_record.append(step_size)
                    return
            step_size *= 0.5
        # No acceptable step: keep the old policy.
        for p, o in zip(params, old):
            p.array[...] = o
        self.kl_record.append(0.0)
        self.policy_step_size_record.append(0.0)

    def stop_episode(self) -> None:
        """Nothing to reset: the rollout survives evaluation episodes."""

    def get_statistics(self) -> list[tuple[str, Any]]:
        def mean(xs: Any) -> float:
            return float(numpy.mean(xs)) if len(xs) else float("nan")

        return [
            ("average_value", mean(self.value_record)),
            ("average_entropy", mean(self.entropy_record)),
            ("average_kl", mean(self.kl_record)),
            ("average_policy_step_size", mean(self.policy_step_size_record)),
            ("n_policy_updates", self.n_policy_updates),
            ("n_vf_updates", self.vf_optimizer.t),
            ("explained_variance", self.explained_variance),
        ]
