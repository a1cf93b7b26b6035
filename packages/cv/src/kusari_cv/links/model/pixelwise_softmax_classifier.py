"""Per-pixel softmax cross-entropy loss around a segmentation model."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

import kusari
import kusari.functions as F


class PixelwiseSoftmaxClassifier(kusari.Chain):
    """Wraps a segmentation model with a per-pixel softmax cross-entropy loss.

    Calling it with images ``x`` ``(B, C, H, W)`` and labels ``t``
    ``(B, H, W)`` runs ``predictor(x)``, keeps the score in ``self.y``,
    reports ``loss`` and returns it.

    Args:
        predictor: A link that maps images to ``(B, n_class, H, W)`` scores
            and has an ``n_class`` attribute.
        ignore_label: Label value whose pixels do not count.
        class_weight: Per-class loss weights of shape ``(n_class,)``, or None.
    """

    def __init__(
        self, predictor: kusari.Link, ignore_label: int = -1, class_weight: Any = None
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.predictor = predictor
        self.n_class: int = cast(Any, predictor).n_class
        self.ignore_label = ignore_label
        if class_weight is not None:
            class_weight = np.asarray(class_weight, dtype=np.float32)
            if class_weight.shape != (self.n_class,):
                raise ValueError(
                    f"PixelwiseSoftmaxClassifier: class_weight must have shape "
                    f"({self.n_class},), got {class_weight.shape}"
                )
        self.class_weight = class_weight
        self.y: Any = None
        self.loss: Any = None

    def device_resident_accept(self, visitor: Any) -> None:
        """Moves ``class_weight`` along with the parameters."""
        super().device_resident_accept(visitor)
        if self.class_weight is not None:
            self.class_weight = visitor.visit_array(self.class_weight)

    def forward(self, x: Any, t: Any) -> Any:
        """The mean per-pixel loss of the predictor's scores on ``x`` against ``t``."""
        self.y = self.predictor(x)
        self.loss = F.softmax_cross_entropy(
            self.y, t, class_weight=self.class_weight, ignore_label=self.ignore_label
        )
        kusari.report({"loss": self.loss}, self)
        return self.loss
