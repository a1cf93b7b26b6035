"""Hooks that act on calls of links (``link.add_hook(hook)`` or ``with hook:``).

Not imported by ``import kusari`` (as in Chainer): ``import kusari.link_hooks``.

Example:
    >>> import numpy as np
    >>> import kusari.links as L
    >>> from kusari import link_hooks
    >>> layer = L.Linear(3, 2).add_hook(link_hooks.SpectralNormalization())
    >>> layer(np.ones((1, 3), np.float32)).shape
    (1, 2)
"""

from kusari.link_hooks.spectral_normalization import SpectralNormalization
from kusari.link_hooks.timer import TimerHook
from kusari.link_hooks.weight_standardization import WeightStandardization

__all__ = ["SpectralNormalization", "TimerHook", "WeightStandardization"]
