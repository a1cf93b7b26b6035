"""Implicit quantile networks (Dabney et al., 2018)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.action_value import QuantileDiscreteActionValue
from kusari_rl.agents.dqn import DQN

__all__ = [
    "IQN",
    "CosineBasisLinear",
    "ImplicitQuantileQFunction",
    "compute_eltwise_huber_quantile_loss",
    "cosine_basis_functions",
]


def cosine_basis_functions(x: Any, n_basis_functions: int = 64) -> Any:
    """``cos(pi i x)`` for ``i = 1..n``: shape ``x.shape + (n,)``."""
    xp = kusari.backend.get_array_module(x)
    i_pi = xp.arange(1, n_basis_functions + 1, dtype=np.float32) * np.float32(np.pi)
    return xp.cos(x[..., None] * i_pi)


class CosineBasisLinear(kusari.Chain):
    """Linear layer on the cosine embedding of quantile fractions.

    Args:
        n_basis_functions: Embedding size.
        out_size: Output size.
    """

    def __init__(self, n_basis_functions: int, out_size: int) -> None:
        super().__init__()
        self.n_basis_functions = n_basis_functions
        self.out_size = out_size
        with self.init_scope():
            self.linear = L.Linear(n_basis_functions, out_size)

    def forward(self, x: Any) -> Any:
        h = cosine_basis_functions(x, self.n_basis_functions)
        h = h.reshape(-1, self.n_basis_functions)
        out = self.linear(h)
        return F.reshape(out, x.shape + (self.out_size,))


class ImplicitQuantileQFunction(kusari.Chain):
    """``Z_tau(s, a) = f(psi(s) * phi(tau))``.

    Calling it with states returns a function of quantile fractions
    ``taus`` (shape ``(batch, n_taus)``) that gives a
    :class:`~kusari_rl.action_value.QuantileDiscreteActionValue`.

    Args:
        psi: State embedding, ``(batch, hidden)``.
        phi: Fraction embedding, e.g. ``Sequence(CosineBasisLinear(64,
            hidden), F.relu)``: ``(batch, n_taus)`` to ``(batch, n_taus, hidden)``.
        f: Head from ``hidden`` to ``n_actions``.
    """

    def __init__(
        self,
        psi: Callable[[Any], Any],
        phi: Callable[[Any], Any],
        f: Callable[[Any], Any],
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.psi = psi
            self.phi = phi
            self.f = f

    def forward(self, x: Any) -> Callable[[Any], QuantileDiscreteActionValue]:
        psi_x = self.psi(x)
        if psi_x.ndim != 2:
            raise ValueError(
                "ImplicitQuantileQFunction: psi must return (batch, hidden), got "
                f"{psi_x.shape}"
            )

        def evaluate_with_quantile_thresholds(taus: Any) -> QuantileDiscreteActionValue:
            batch_size, hidden = psi_x.shape
            n_taus = taus.shape[1]
            phi_taus = self.phi(taus)
            h = F.broadcast_to(F.expand_dims(psi_x, 1), phi_taus.shape) * phi_taus
            h = self.f(F.reshape(h, (-1, hidden)))
            return QuantileDiscreteActionValue(F.reshape(h, (batch_size, n_taus, -1)))

        return evaluate_with_quantile_thresholds


def compute_eltwise_huber_quantile_loss(
    y: Any, t: Any, taus: Any, huber_loss_threshold: float = 1.0
) -> Any:
    """Quantile Huber loss ``|tau - 1{t - y < 0}| * huber(t - y)`` per element.

    Args:
        y: Predicted quantiles, shape ``(batch, N, N')`` (broadcast).
        t: Target samples, same shape.
        taus: Fractions of ``y``, same shape.
    """
    y_arr = y.array if isinstance(y, kusari.Variable) else y
    t_arr = t.array if isinstance(t, kusari.Variable) else t
    below = (t_arr < y_arr).astype(y_arr.dtype)
    huber = F.huber_loss(y, t, delta=huber_loss_threshold, reduce="no")
    return huber * abs(taus - below)


def _value_loss(eltwise_loss: Any, batch_accumulator: str) -> Any:
    if batch_accumulator == "sum":
        # Mean over N', sum over batch and N.
        return F.sum(F.mean(eltwise_loss, axis=2))
    # Mean over batch and N', sum over N.
    return F.sum(F.mean(eltwise_loss, axis=(0, 2)))


def _weighted_value_loss(
    eltwise_loss: Any, weights: Any, batch_accumulator: str
) -> Any:
    batch_size = eltwise_loss.shape[0]
    per_sample = F.sum(F.mean(eltwise_loss, axis=2), axis=1)
    loss_sum = F.sum(per_sample * weights)
    return loss_sum / batch_size if batch_accumulator == "mean" else loss_sum


class IQN(DQN):
    """Implicit quantile network agent.

    Needs an :class:`ImplicitQuantileQFunction`. Extra keyword arguments
    (the others are DQN's):

    Args:
        quantile_thresholds_N: Fractions sampled for the prediction.
        quantile_thresholds_N_prime: Fractions sampled for the target.
        quantile_thresholds_K: Fractions averaged to choose actions.
    """

    def __init__(
        self,
        *args: Any,
        quantile_thresholds_N: int = 64,
        quantile_thresholds_N_prime: int = 64,
        quantile_thresholds_K: int = 32,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.quantile_thresholds_N = quantile_thresholds_N
        self.quantile_thresholds_N_prime = quantile_thresholds_N_prime
        self.quantile_thresholds_K = quantile_thresholds_K

    def _taus(self, batch_size: int, n: int) -> Any:
        return self.xp.random.uniform(0, 1, size=(batch_size, n)).astype(np.float32)

    def _evaluate_model(self, batch_obs: Any, train: bool = False) -> Any:
        # The model gives a function of the quantile fractions; acting
        # averages the values over K of them.
        tau2av = super()._evaluate_model(batch_obs, train)
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            return tau2av(self._taus(len(batch_obs), self.quantile_thresholds_K))

    def _compute_target_values(self, exp_batch: dict[str, Any]) -> Any:
        batch_size = exp_batch["reward"].shape[0]
        tau2av = self._forward(self.target_model, exp_batch, "next_state")
        greedy = tau2av(
            self._taus(batch_size, self.quantile_thresholds_K)
        ).greedy_actions
        next_z = (
            tau2av(self._taus(batch_size, self.quantile_thresholds_N_prime))
            .evaluate_actions_as_quantiles(greedy.array)
            .array
        )
        not_terminal = (1.0 - exp_batch["is_state_terminal"])[:, None]
        return (
            exp_batch["reward"][:, None]
            + not_terminal * exp_batch["discount"][:, None] * next_z
        )

    def _compute_y_and_t(self, exp_batch: dict[str, Any]) -> tuple[Any, Any, Any]:  # type: ignore[override]
        batch_size = exp_batch["reward"].shape[0]
        n, n_prime = self.quantile_thresholds_N, self.quantile_thresholds_N_prime
        taus = self._taus(batch_size, n)
        av = self._forward(self.model, exp_batch, "state")(taus)
        y = av.evaluate_actions_as_quantiles(exp_batch["action"])  # (B, N)
        with kusari.no_backprop_mode():
            t = self._compute_target_values(exp_batch)  # (B, N')
        shape = (batch_size, n, n_prime)
        y = F.broadcast_to(F.expand_dims(y, 2), shape)
        t = self.xp.broadcast_to(t[:, None, :], shape).astype(np.float32)
        taus = self.xp.broadcast_to(taus[:, :, None], shape)
        return y, t, taus

    def _compute_loss(
        self, exp_batch: dict[str, Any], errors_out: list | None = None
    ) -> Any:
        y, t, taus = self._compute_y_and_t(exp_batch)
        eltwise_loss = compute_eltwise_huber_quantile_loss(y, t, taus)
        if errors_out is not None:
            del errors_out[:]
            per_sample = eltwise_loss.array.mean(axis=(1, 2))
            errors_out.extend(kusari.backend.CpuDevice().send(per_sample).tolist())
        if "weights" in exp_batch:
            return _weighted_value_loss(
                eltwise_loss, exp_batch["weights"], self.batch_accumulator
            )
        return _value_loss(eltwise_loss, self.batch_accumulator)
