"""Optimizers for reinforcement learning (``chainerrl.optimizers``)."""

from kusari_rl.optimizers.rmsprop_async import RMSpropAsync

__all__ = ["RMSpropAsync"]
