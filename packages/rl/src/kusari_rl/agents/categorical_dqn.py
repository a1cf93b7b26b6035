"""Categorical DQN / C51 (Bellemare et al., 2017)."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
import kusari.functions as F
from kusari_rl.agents.dqn import DQN

__all__ = [
    "CategoricalDQN",
    "apply_categorical_projection",
    "compute_value_loss",
    "compute_weighted_value_loss",
]


def apply_categorical_projection(y: Any, y_probs: Any, z: Any) -> Any:
    """Project the distribution ``(y, y_probs)`` onto the support ``z``.

    Each atom ``y[b, j]`` (clipped into ``[z[0], z[-1]]``) splits its
    probability between the two neighbouring support points in proportion to
    its distance to them.

    Args:
        y: Atom positions, shape ``(batch, n_atoms)``.
        y_probs: Their probabilities, same shape.
        z: Evenly spaced support, shape ``(n_atoms,)``.

    Returns:
        Probabilities on ``z``, shape ``(batch, n_atoms)``.

    Example:
        >>> z = np.array([0., 1., 2.], dtype=np.float32)
        >>> apply_categorical_projection(
        ...     np.array([[0.5, 1., 3.]], dtype=np.float32),
        ...     np.array([[0.2, 0.3, 0.5]], dtype=np.float32), z).tolist()
        [[0.10000000149011612, 0.4000000059604645, 0.5]]
    """
    xp = kusari.backend.get_array_module(y)
    batch_size, n_atoms = y.shape
    v_min, v_max = float(z[0]), float(z[-1])
    delta_z = (v_max - v_min) / (n_atoms - 1)
    bj = (xp.clip(y, v_min, v_max) - v_min) / delta_z
    # Lower neighbour in [0, n_atoms - 2] so that the upper one always exists;
    # an atom exactly on z[-1] then puts all its mass on the upper one.
    lower = xp.clip(xp.floor(bj), 0, n_atoms - 2).astype(np.int64)
    frac_upper = (bj - lower).astype(y_probs.dtype)
    out = xp.zeros((batch_size * n_atoms,), dtype=y_probs.dtype)
    offset = (xp.arange(batch_size, dtype=np.int64) * n_atoms)[:, None]
    xp.add.at(out, (lower + offset).ravel(), (y_probs * (1 - frac_upper)).ravel())
    xp.add.at(out, (lower + 1 + offset).ravel(), (y_probs * frac_upper).ravel())
    return out.reshape(batch_size, n_atoms)


def compute_value_loss(eltwise_loss: Any, batch_accumulator: str = "mean") -> Any:
    """Sum the per-atom cross entropy over atoms, then mean/sum over the batch."""
    if batch_accumulator not in ("mean", "sum"):
        raise ValueError(
            f"batch_accumulator must be 'mean' or 'sum', got {batch_accumulator!r}"
        )
    if batch_accumulator == "sum":
        return F.sum(eltwise_loss)
    return F.mean(F.sum(eltwise_loss, axis=1))


def compute_weighted_value_loss(
    eltwise_loss: Any, weights: Any, batch_accumulator: str = "mean"
) -> Any:
    """:func:`compute_value_loss` with per-sample importance weights."""
    if batch_accumulator not in ("mean", "sum"):
        raise ValueError(
            f"batch_accumulator must be 'mean' or 'sum', got {batch_accumulator!r}"
        )
    batch_size = eltwise_loss.shape[0]
    loss_sum = F.sum(F.sum(eltwise_loss, axis=1) * weights)
    return loss_sum / batch_size if batch_accumulator == "mean" else loss_sum


class CategoricalDQN(DQN):
    """DQN learning return distributions on a fixed support (C51).

    Needs a distributional Q-function (one returning a
    :class:`~kusari_rl.action_value.DistributionalDiscreteActionValue`), e.g.
    :class:`~kusari_rl.q_functions.DistributionalFCStateQFunctionWithDiscreteAction`.
    The loss is the cross entropy between the predicted distribution and
    the projected target ``r + gamma z``. Arguments are DQN's.
    """

    def _target_distribution(
        self, exp_batch: dict[str, Any], target_next_qout: Any
    ) -> Any:
        return target_next_qout.max_as_distribution.array

    def _compute_target_values(self, exp_batch: dict[str, Any]) -> Any:
        target_next_qout = self._forward(self.target_model, exp_batch, "next_state")
        next_probs = self._target_distribution(exp_batch, target_next_qout)
        z = target_next_qout.z_values
        not_terminal = (1.0 - exp_batch["is_state_terminal"])[:, None]
        tz = (
            exp_batch["reward"][:, None]
            + not_terminal * exp_batch["discount"][:, None] * z[None]
        )
        return apply_categorical_projection(tz.astype(np.float32), next_probs, z)

    def _compute_y_and_t(self, exp_batch: dict[str, Any]) -> tuple[Any, Any]:
        qout = self._forward(self.model, exp_batch, "state")
        batch_q = qout.evaluate_actions_as_distribution(exp_batch["action"])
        with kusari.no_backprop_mode():
            target = self._compute_target_values(exp_batch)
        return batch_q, target

    def _compute_loss(
        self, exp_batch: dict[str, Any], errors_out: list | None = None
    ) -> Any:
        y, t = self._compute_y_and_t(exp_batch)
        eltwise_loss = -t * F.log(F.clip(y, 1e-10, 1.0))
        if errors_out is not None:
            del errors_out[:]
            per_sample = kusari.backend.CpuDevice().send(eltwise_loss.array.sum(axis=1))
            errors_out.extend(per_sample.tolist())
        if "weights" in exp_batch:
            return compute_weighted_value_loss(
                eltwise_loss,
                exp_batch["weights"],
                batch_accumulator=self.batch_accumulator,
            )
        return compute_value_loss(
            eltwise_loss, batch_accumulator=self.batch_accumulator
        )
