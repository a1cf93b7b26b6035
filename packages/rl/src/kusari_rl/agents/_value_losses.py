"""Losses between Q-values and their targets, shared by the DQN family."""

from __future__ import annotations

from typing import Any

import kusari
import kusari.functions as F

__all__ = ["clip_grad_norm", "compute_value_loss", "compute_weighted_value_loss"]


def compute_value_loss(
    y: Any, t: Any, clip_delta: bool = True, batch_accumulator: str = "mean"
) -> kusari.Variable:
    """Loss between predictions ``y`` and targets ``t`` (both ``(B, 1)``).

    Huber loss (delta 1) if ``clip_delta`` else half squared error, summed
    over the batch and divided by ``B`` for ``batch_accumulator='mean'``.
    """
    if batch_accumulator not in ("mean", "sum"):
        raise ValueError(
            f"compute_value_loss: batch_accumulator must be 'mean' or 'sum', got "
            f"{batch_accumulator!r}"
        )
    y, t = _as_column(y), _as_column(t)
    if clip_delta:
        loss_sum = F.sum(F.huber_loss(y, t, delta=1.0))
    else:
        loss_sum = F.sum(F.square(y - t)) * 0.5
    return loss_sum / y.shape[0] if batch_accumulator == "mean" else loss_sum


def compute_weighted_value_loss(
    y: Any,
    t: Any,
    weights: Any,
    clip_delta: bool = True,
    batch_accumulator: str = "mean",
) -> kusari.Variable:
    """:func:`compute_value_loss` with per-sample importance ``weights``."""
    if batch_accumulator not in ("mean", "sum"):
        raise ValueError(
            "compute_weighted_value_loss: batch_accumulator must be 'mean' or "
            f"'sum', got {batch_accumulator!r}"
        )
    y, t = _as_column(y), _as_column(t)
    if clip_delta:
        losses = F.huber_loss(y, t, delta=1.0, reduce="no")
    else:
        losses = F.square(y - t) * 0.5
    loss_sum = F.sum(F.reshape(losses, (-1,)) * weights)
    return loss_sum / y.shape[0] if batch_accumulator == "mean" else loss_sum


def _as_column(x: Any) -> Any:
    """``x`` as shape ``(B, 1)``; arrays stay arrays and no op is recorded
    when the shape is already right (this runs on every update)."""
    if x.ndim == 2 and x.shape[1] == 1:
        return x
    if isinstance(x, kusari.Variable):
        return F.reshape(x, (-1, 1))
    return x.reshape(-1, 1)


def clip_grad_norm(link: kusari.Link, max_norm: float) -> None:
    """Scale ``link``'s gradients in place so their global L2 norm is at most
    ``max_norm``."""
    grads = [p.grad for p in link.params() if p.grad is not None]
    if not grads:
        return
    xp = kusari.backend.get_array_module(grads[0])
    norm = float(xp.sqrt(sum(xp.sum(xp.square(g)) for g in grads)))
    if norm > max_norm:
        scale = max_norm / (norm + 1e-6)
        for g in grads:
            g *= scale
