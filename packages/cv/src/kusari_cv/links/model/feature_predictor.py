"""Adds image preprocessing and a ``predict`` method to a feature extractor."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

import kusari
from kusari.backends import cuda
from kusari_cv import transforms


class FeaturePredictor(kusari.Chain):
    """Wraps a feature extraction link with preprocessing and ``predict``.

    :meth:`predict` optionally rescales each image (``scale_size``), crops it
    (one center crop, or ten crops with ``crop='10'``: four corners and the
    center, each also mirrored), subtracts ``mean``, runs the extractor in
    test mode and, for several crops, averages the features over the crops.

    Args:
        extractor: A link mapping a batch ``(B, C, H, W)`` to a Variable or
            a tuple of them (e.g. :class:`~kusari_cv.links.ResNet50`).
        crop_size: ``(height, width)`` of the crops, or one int for both.
        scale_size: None for no resizing; an int to scale the shorter side
            to it; ``(height, width)`` to resize to that shape.
        crop: ``'center'`` or ``'10'``.
        mean: Mean subtracted from each crop; ``extractor.mean`` if None.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import FeaturePredictor, ResNet50
        >>> model = FeaturePredictor(ResNet50(n_class=5), crop_size=32)
        >>> img = np.random.uniform(0, 255, (3, 40, 48)).astype(np.float32)
        >>> model.predict([img]).shape
        (1, 5)
    """

    def __init__(
        self,
        extractor: kusari.Link,
        crop_size: int | tuple[int, int],
        scale_size: int | tuple[int, int] | None = None,
        crop: str = "center",
        mean: Any = None,
    ) -> None:
        super().__init__()
        if crop not in ("center", "10"):
            raise ValueError(
                f"FeaturePredictor: crop must be 'center' or '10', got {crop!r}"
            )
        if isinstance(crop_size, int):
            crop_size = (crop_size, crop_size)
        self.crop_size: tuple[int, int] = (int(crop_size[0]), int(crop_size[1]))
        self.scale_size = scale_size
        self.crop = crop
        with self.init_scope():
            self.extractor = extractor
        self.mean = getattr(extractor, "mean", None) if mean is None else mean
        if self.mean is None:
            raise ValueError(
                "FeaturePredictor: mean is None and the extractor has no mean "
                "attribute; pass mean="
            )

    def _prepare(self, img: np.ndarray) -> np.ndarray:
        """Scales, crops and centres one CHW image into ``(n_crop, C, h, w)``."""
        if self.scale_size is None:
            img = img.copy()
        elif isinstance(self.scale_size, int):
            img = transforms.scale(img, size=self.scale_size)
        else:
            h, w = self.scale_size
            img = transforms.resize(img, size=(h, w))
        if self.crop == "10":
            imgs = transforms.ten_crop(img, self.crop_size)
        else:
            imgs = transforms.center_crop(img, self.crop_size)[np.newaxis]
        return (imgs - np.asarray(self.mean)[np.newaxis]).astype(np.float32)

    @staticmethod
    def _average_crops(y: Any, n_crop: int) -> Any:
        if y.ndim == 4:
            warnings.warn(
                "FeaturePredictor: averaging 4-dimensional features over crops; "
                "if they are spatial maps their layout is lost",
                stacklevel=3,
            )
        xp = kusari.backend.get_array_module(y)
        return xp.mean(y.reshape((-1, n_crop) + y.shape[1:]), axis=1)

    def predict(self, imgs: Iterable[np.ndarray]) -> Any:
        """Features of each image, averaged over its crops.

        Args:
            imgs: CHW images with values in ``[0, 255]``.

        Returns:
            An array ``(N, ...)``, or a tuple of them when the extractor
            returns several outputs (e.g. with a tuple ``pick``).
        """
        prepared = np.stack([self._prepare(img) for img in imgs])
        n_crop = prepared.shape[1]
        batch = self.xp.asarray(
            prepared.reshape((-1, prepared.shape[2]) + self.crop_size)
        )
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            features = self.extractor(kusari.Variable(batch))
        many = isinstance(features, tuple)
        outputs = []
        for feature in features if many else (features,):
            array = getattr(feature, "array", feature)  # Variable or array
            if n_crop > 1:
                array = self._average_crops(array, n_crop)
            outputs.append(cuda.to_cpu(array))
        return tuple(outputs) if many else outputs[0]
