"""The layer normalization link (``LayerNormalization``)."""

from __future__ import annotations

from typing import Any

from kusari import initializers, link, variable
from kusari.functions.normalization import layer_normalization as ln_module
from kusari.utils import size_of_shape


class LayerNormalization(link.Link):
    """Layer normalization (Ba et al., 2016) of ``(N, size)`` inputs.

    Each row is normalized over its features, then scaled by ``gamma`` and
    shifted by ``beta`` (both of shape ``(size,)``).

    Args:
        size: Feature size; None infers it from the first input.
        eps: Added to the variance.
        initial_gamma: Initializer of ``gamma``; one by default.
        initial_beta: Initializer of ``beta``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> ln = L.LayerNormalization()
        >>> y = ln(np.array([[1, 2, 3]], np.float32))
        >>> ln.gamma.shape, np.round(y.array, 3)
        ((3,), array([[-1.225,  0.   ,  1.225]], dtype=float32))
    """

    def __init__(
        self,
        size: int | None = None,
        eps: float = 1e-6,
        initial_gamma: Any = None,
        initial_beta: Any = None,
    ) -> None:
        super().__init__()
        if initial_gamma is None:
            initial_gamma = 1
        if initial_beta is None:
            initial_beta = 0
        with self.init_scope():
            self.gamma = variable.Parameter(
                initializers._get_initializer(initial_gamma)
            )
            self.beta = variable.Parameter(initializers._get_initializer(initial_beta))
            if size is not None:
                self._initialize_params(size)
        self.eps = eps

    def _initialize_params(self, size: int) -> None:
        self.gamma.initialize(size)
        self.beta.initialize(size)

    def forward(self, x: Any) -> Any:
        if self.gamma.array is None:
            self._initialize_params(size_of_shape(tuple(x.shape[1:])))
        return ln_module.layer_normalization(x, self.gamma, self.beta, self.eps)
