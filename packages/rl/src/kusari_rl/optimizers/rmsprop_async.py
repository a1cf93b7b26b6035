"""RMSprop as used by A3C (``chainerrl.optimizers.RMSpropAsync``)."""

from __future__ import annotations

import kusari.optimizers

__all__ = ["RMSpropAsync"]


class RMSpropAsync(kusari.optimizers.RMSprop):
    """RMSprop with ``eps`` inside the square root: ``W -= lr g / sqrt(ms + eps)``.

    This is the form of the A3C paper (and ChainerRL's RMSpropAsync); with
    its large default ``eps`` (often 1e-1 for A3C) it behaves differently from
    plain RMSprop. Its ``ms`` states can be moved to shared memory with
    :func:`kusari_rl.misc.async_.share_states_as_shared_arrays` so that all
    worker processes share the statistics.

    Args:
        lr: Learning rate.
        alpha: Decay rate of the running mean of squared gradients.
        eps: Added to the mean of squared gradients inside the square root.

    Example:
        >>> import kusari.links as L
        >>> opt = RMSpropAsync(lr=7e-4, eps=1e-1, alpha=0.99)
        >>> opt.setup(L.Linear(2, 1)).eps_inside_sqrt
        True
    """

    def __init__(
        self, lr: float = 0.01, alpha: float = 0.99, eps: float = 1e-8
    ) -> None:
        super().__init__(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=True)
