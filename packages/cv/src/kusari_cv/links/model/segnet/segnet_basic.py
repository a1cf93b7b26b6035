"""SegNet Basic (Badrinarayanan et al., PAMI 2017) for semantic segmentation."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.initializers as I
import kusari.links as L
from kusari.backends import cuda
from kusari_cv import transforms, utils

_ENCODERS = ("conv1", "conv2", "conv3", "conv4")
_DECODERS = ("conv_decode4", "conv_decode3", "conv_decode2", "conv_decode1")


class SegNetBasic(kusari.Chain):
    """SegNet Basic: four 7x7 encoder stages and four mirrored decoders.

    Each encoder stage is convolution, batch normalization, ReLU and 2x2 max
    pooling; each decoder unpools with the encoder's argmax positions and
    convolves. A final 1x1 convolution gives per-pixel class scores at the
    input's resolution (for sizes divisible by 16).

    Args:
        n_class: Number of classes; required unless a preset gives it.
        pretrained_model: ``'camvid'`` (trained on CamVid's train split), an
            ``.npz`` path in ChainerCV's layout, or None.
        initialW: Initializer of the convolutions (He normal by default).

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import SegNetBasic
        >>> model = SegNetBasic(n_class=4)
        >>> model(np.zeros((1, 3, 32, 48), np.float32)).shape
        (1, 4, 32, 48)
        >>> label, = model.predict([np.zeros((3, 20, 30), np.float32)])
        >>> label.shape, label.dtype
        ((20, 30), dtype('int32'))
    """

    _models: dict[str, dict[str, Any]] = {
        "camvid": {
            "param": {"n_class": 11},
            "url": "https://chainercv-models.preferred.jp/"
            "segnet_camvid_trained_2018_12_05.npz",
        }
    }

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        initialW: Any = None,
    ) -> None:
        param, path = utils.prepare_pretrained_model(
            {"n_class": n_class}, pretrained_model, self._models
        )
        self.n_class = param["n_class"]
        if initialW is None:
            initialW = I.HeNormal()
        super().__init__()
        with self.init_scope():
            for i, name in enumerate(_ENCODERS + _DECODERS):
                in_channels = None if i == 0 else 64
                conv = L.Convolution2D(
                    in_channels, 64, 7, 1, 3, nobias=True, initialW=initialW
                )
                setattr(self, name, conv)
                # The small positive shift keeps ReLUs alive at the start.
                setattr(
                    self, name + "_bn", L.BatchNormalization(64, initial_beta=0.001)
                )
            self.conv_classifier = L.Convolution2D(
                64, self.n_class, 1, 1, 0, initialW=initialW
            )
        if path:
            kusari.serializers.load_npz(path, self)

    @staticmethod
    def _upsampling_2d(x: Any, indices: Any) -> Any:
        # An odd-sized map was pooled with cover_all; the next decoder's input
        # may then be one pixel larger than the indices: crop both to agree.
        if x.shape != indices.shape:
            h = min(x.shape[2], indices.shape[2])
            w = min(x.shape[3], indices.shape[3])
            x = x[:, :, :h, :w]
            indices = indices[:, :, :h, :w]
        outsize = (x.shape[2] * 2, x.shape[3] * 2)
        return F.upsampling_2d(x, indices, ksize=2, stride=2, outsize=outsize)

    def forward(self, x: Any) -> Any:
        """Per-pixel class scores ``(B, n_class, H, W)`` of images ``x``."""
        h = F.local_response_normalization(x, 5, 1, 1e-4 / 5.0, 0.75)
        indices = []
        for name in _ENCODERS:
            h = F.relu(self[name + "_bn"](self[name](h)))
            h, index = F.max_pooling_2d(h, 2, 2, return_indices=True)
            indices.append(index)
        for name, index in zip(_DECODERS, reversed(indices), strict=True):
            h = self._upsampling_2d(h, index)
            h = self[name + "_bn"](self[name](h))
        return self.conv_classifier(h)

    def predict(self, imgs: Iterable[np.ndarray]) -> list[np.ndarray]:
        """Segments images.

        Args:
            imgs: CHW, RGB images with values in ``[0, 255]``.

        Returns:
            One int32 ``(H, W)`` label map per image.
        """
        labels = []
        for img in imgs:
            C, H, W = img.shape
            with kusari.using_config("train", False), kusari.no_backprop_mode():
                x = self.xp.asarray(img[np.newaxis], dtype=np.float32)
                score = cuda.to_cpu(self.forward(x)[0].array)
            if score.shape[1:] != (H, W):
                score = transforms.resize(score, (H, W)).astype(score.dtype)
            labels.append(np.argmax(score, axis=0).astype(np.int32))
        return labels
