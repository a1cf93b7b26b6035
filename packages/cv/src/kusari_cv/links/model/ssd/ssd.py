"""SSD (Liu et al., 2016): feature extractor, multibox heads and a box coder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import kusari
from kusari.backends import cuda
from kusari_cv import transforms
from kusari_cv._typing import Array
from kusari_cv.links.model._preset import apply_preset
from kusari_cv.links.model.ssd.multibox_coder import MultiboxCoder

_PRESETS = {
    "visualize": {"nms_thresh": 0.45, "score_thresh": 0.6},
    "evaluate": {"nms_thresh": 0.45, "score_thresh": 0.01},
}


class SSD(kusari.Chain):
    """Single Shot MultiBox Detector.

    ``extractor`` maps a batch of images of side ``extractor.insize`` to a
    list of feature maps of sides ``extractor.grids``; ``multibox`` turns them
    into offsets and class scores; a :class:`MultiboxCoder` decodes those.

    Args:
        extractor: A link with ``insize`` and ``grids`` attributes.
        multibox: A link with ``n_class`` and ``aspect_ratios`` attributes.
        steps: Stride of each feature map in input pixels.
        sizes: Default box sizes (one more than feature maps).
        variance: Scales of the center and size offsets.
        mean: Subtracted from each (CHW, RGB) image before the forward pass.

    Attributes:
        nms_thresh: IoU threshold of the non-maximum suppression in predict.
        score_thresh: Minimum probability of a predicted box.
    """

    # Set by use_preset.
    nms_thresh: float
    score_thresh: float

    def __init__(
        self,
        extractor: Any,
        multibox: Any,
        steps: Sequence[float],
        sizes: Sequence[float],
        variance: Sequence[float] = (0.1, 0.2),
        mean: Any = 0,
    ) -> None:
        super().__init__()
        self.mean = mean
        self.use_preset("visualize")
        with self.init_scope():
            self.extractor = extractor
            self.multibox = multibox
        self.coder = MultiboxCoder(
            extractor.grids, multibox.aspect_ratios, steps, sizes, variance
        )

    @property
    def insize(self) -> int:
        """Side of the square input the network sees."""
        extractor: Any = self.extractor
        return int(extractor.insize)

    @property
    def n_fg_class(self) -> int:
        """Number of foreground classes."""
        multibox: Any = self.multibox
        return int(multibox.n_class) - 1

    def forward(self, x: Any) -> tuple[kusari.Variable, kusari.Variable]:
        """Offsets ``(B, K, 4)`` and class logits ``(B, K, n_fg_class + 1)``."""
        return self.multibox(self.extractor(x))

    def use_preset(self, preset: str) -> None:
        """Set ``nms_thresh`` and ``score_thresh`` for ``'visualize'`` or
        ``'evaluate'``."""
        apply_preset(self, _PRESETS, preset)

    def _prepare(self, img: Array) -> Array:
        img = numpy.asarray(img, dtype=numpy.float32)
        img = transforms.resize(img, (self.insize, self.insize))
        return (img - self.mean).astype(numpy.float32, copy=False)

    def predict(
        self, imgs: Sequence[Array]
    ) -> tuple[list[Array], list[Array], list[Array]]:
        """Detect objects in images.

        Args:
            imgs: CHW RGB images (float values in ``[0, 255]``), any sizes.

        Returns:
            ``(bboxes, labels, scores)``: per image a float32 ``(R, 4)`` array
            of ``(y_min, x_min, y_max, x_max)`` in that image's pixels, an
            int32 ``(R,)`` array of labels and a float32 ``(R,)`` array of
            scores, all NumPy.
        """
        xs, sizes = [], []
        for img in imgs:
            if getattr(img, "ndim", None) != 3:
                raise ValueError(
                    f"{type(self).__name__}.predict: expected CHW images, got "
                    f"shape {getattr(img, 'shape', None)}"
                )
            sizes.append(img.shape[1:])
            xs.append(self._prepare(cuda.to_cpu(img)))
        x = self.xp.asarray(numpy.stack(xs))
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            mb_locs, mb_confs = self(x)
        bboxes, labels, scores = [], [], []
        for mb_loc, mb_conf, size in zip(mb_locs.array, mb_confs.array, sizes):
            bbox, label, score = self.coder.decode(
                mb_loc, mb_conf, self.nms_thresh, self.score_thresh
            )
            bbox = transforms.resize_bbox(bbox, (self.insize, self.insize), size)
            bboxes.append(cuda.to_cpu(bbox))
            labels.append(cuda.to_cpu(label))
            scores.append(cuda.to_cpu(score))
        return bboxes, labels, scores
