"""The group normalization link (``GroupNormalization``)."""

from __future__ import annotations

import copy
from typing import Any

import numpy

import kusari
from kusari import initializers, link, variable
from kusari.functions.normalization import group_normalization as gn_module


class GroupNormalization(link.Link):
    """Group normalization (Wu & He, 2018).

    Each sample's channels are split into ``groups`` groups normalized
    separately; ``gamma`` and ``beta`` have shape ``(channels,)``.

    Args:
        groups: Number of channel groups (must divide the channels).
        size: Number of channels; None infers it from the first input.
        eps: Added to the variance.
        initial_gamma: Initializer of ``gamma``; one by default.
        initial_beta: Initializer of ``beta``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> gn = L.GroupNormalization(2)
        >>> gn(np.random.rand(3, 4, 5).astype(np.float32)).shape, gn.gamma.shape
        ((3, 4, 5), (4,))
    """

    def __init__(
        self,
        groups: int,
        size: int | None = None,
        eps: float = 1e-5,
        initial_gamma: Any = None,
        initial_beta: Any = None,
    ) -> None:
        super().__init__()
        if initial_gamma is None:
            initial_gamma = 1
        if initial_beta is None:
            initial_beta = 0
        dtype = numpy.dtype(kusari.get_dtype(None, map_mixed16=numpy.float32))
        gamma_init = copy.copy(initializers._get_initializer(initial_gamma))
        gamma_init.dtype = dtype  # type: ignore[attr-defined]
        beta_init = copy.copy(initializers._get_initializer(initial_beta))
        beta_init.dtype = dtype  # type: ignore[attr-defined]
        with self.init_scope():
            self.groups = groups
            self.gamma = variable.Parameter(gamma_init)
            self.beta = variable.Parameter(beta_init)
        self.eps = eps
        if size is not None:
            self._initialize_params(size)

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> Any:
        if self.gamma.array is None:
            if len(x.shape) < 2:
                raise ValueError(
                    "GroupNormalization: input dimension must be at least 2, "
                    "including the batch dimension"
                )
            self._initialize_params(x.shape[1])
        return gn_module.group_normalization(
            x, self.groups, self.gamma, self.beta, self.eps
        )
