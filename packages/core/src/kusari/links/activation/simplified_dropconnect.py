"""The simplified dropconnect link (``SimplifiedDropconnect``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import initializers, link, variable
from kusari.functions.noise import simplified_dropconnect as sdc_module
from kusari.links._params import bias_parameter


class SimplifiedDropconnect(link.Link):
    """Fully connected layer with simplified dropconnect regularization.

    In training, each weight is dropped with probability ``ratio`` (per
    sample with ``use_batchwise_mask``) and the rest scaled by
    ``1 / (1 - ratio)``; otherwise it acts as a linear layer.

    Args:
        in_size: Input dimension (None: lazy).
        out_size: Output dimension.
        ratio: Dropconnect ratio.
        nobias: Leave out the bias.
        initialW: Initializer of ``W`` (shape ``(out_size, in_size)``);
            ``HeNormal(1 / sqrt(2))`` by default.
        initial_bias: Initializer of ``b``; zero by default.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> layer = L.SimplifiedDropconnect(3, 2, ratio=0.5)
        >>> layer(np.ones((4, 3), np.float32)).shape
        (4, 2)
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int,
        ratio: float = 0.5,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self.out_size = out_size
        self.ratio = ratio
        if initialW is None:
            initialW = initializers.HeNormal(1.0 / numpy.sqrt(2))
        with self.init_scope():
            self.W = variable.Parameter(initializers._get_initializer(initialW))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                self.b = bias_parameter(out_size, initial_bias)

    def _initialize_params(self, in_size: int) -> None:
        self.W.initialize((self.out_size, in_size))

    def forward(
        self,
        x: Any,
        train: bool = True,
        mask: Any = None,
        use_batchwise_mask: bool = True,
    ) -> Any:
        """Apply the layer.

        Args:
            x: Input of shape ``(N, ...)`` (flattened to ``(N, in_size)``).
            train: Drop connections (else act as a linear layer).
            mask: A given ``(N, out_size, in_size)`` (or ``(out_size,
                in_size)``) mask instead of a random one (for debugging).
            use_batchwise_mask: Draw a different mask per sample.
        """
        if self.W.array is None:
            self._initialize_params(int(numpy.prod(x.shape[1:])))
        if mask is not None and "mask" not in self.__dict__:
            self.add_persistent("mask", mask)
        return sdc_module.simplified_dropconnect(
            x, self.W, self.b, self.ratio, train, mask, use_batchwise_mask
        )
