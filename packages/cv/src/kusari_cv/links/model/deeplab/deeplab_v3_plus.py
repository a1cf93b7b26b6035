"""DeepLab v3+ (Chen et al., ECCV 2018) with an Xception-65 backbone."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, cast

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari.backends import cuda
from kusari_cv import transforms, utils
from kusari_cv.links.connection import Conv2DBNActiv, SeparableConv2DBNActiv
from kusari_cv.links.model.deeplab.aspp import SeparableASPP
from kusari_cv.links.model.deeplab.xception import Xception65


class Decoder(kusari.Chain):
    """DeepLab v3+'s decoder: fuses low-level features with the ASPP output.

    Args:
        in_channels: Channels of the low-level features.
        out_channels: Number of classes.
        proj_channels: Channels the low-level features are projected to.
        depth_channels: Channels of the two separable convolutions.
        bn_kwargs: Keyword arguments of the batch normalizations.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        proj_channels: int,
        depth_channels: int,
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        bn = dict(bn_kwargs or {})
        # The ASPP output (``in_channels`` wide in ChainerCV's configuration)
        # is concatenated with the projected low-level features.
        concat_channels = in_channels + proj_channels
        with self.init_scope():
            self.feature_proj = Conv2DBNActiv(in_channels, proj_channels, 1)
            self.conv1 = SeparableConv2DBNActiv(
                concat_channels,
                depth_channels,
                3,
                1,
                1,
                1,
                nobias=True,
                dw_activ=F.relu,
                pw_activ=F.relu,
                bn_kwargs=bn,
            )
            self.conv2 = SeparableConv2DBNActiv(
                depth_channels,
                depth_channels,
                3,
                1,
                1,
                1,
                nobias=True,
                dw_activ=F.relu,
                pw_activ=F.relu,
                bn_kwargs=bn,
            )
            self.conv_logits = L.Convolution2D(depth_channels, out_channels, 1, 1, 0)

    def forward(self, x: Any, pool: Any) -> Any:
        """Logits at the low-level features' resolution."""
        x = self.feature_proj(x)
        pool = F.resize_images(pool, x.shape[2:])
        h = F.concat((pool, x), axis=1)
        return self.conv_logits(self.conv2(self.conv1(h)))


class DeepLabV3plus(kusari.Chain):
    """DeepLab v3+: feature extractor, ASPP and decoder.

    Args:
        feature_extractor: Returns ``(lowlevel, highlevel)`` features and has
            a ``mean`` attribute (the padding value).
        aspp: Applied to the high-level features.
        decoder: Called as ``decoder(lowlevel, aspp_output)``.
        min_input_size: Smaller images are padded (with the mean) to this
            ``(height, width)``; an int for a square.
        scales: Scales of multi-scale prediction (softmax scores averaged).
        flip: Also average the predictions of mirrored images.
    """

    def __init__(
        self,
        feature_extractor: kusari.Link,
        aspp: kusari.Link,
        decoder: kusari.Link,
        min_input_size: int | tuple[int, int],
        scales: Sequence[float] = (1.0,),
        flip: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(min_input_size, (list, tuple)):
            min_input_size = (int(min_input_size), int(min_input_size))
        self.min_input_size = tuple(min_input_size)
        self.scales = tuple(scales)
        self.flip = flip
        with self.init_scope():
            self.feature_extractor = feature_extractor
            self.aspp = aspp
            self.decoder = decoder

    def prepare(self, image: np.ndarray) -> np.ndarray:
        """Pads a CHW RGB ``[0, 255]`` image to ``min_input_size`` with the
        extractor's mean and scales it to ``[-1, 1]``."""
        _, H, W = image.shape
        h = max(self.min_input_size[0], H)
        w = max(self.min_input_size[1], W)
        mean = cast(Any, self.feature_extractor).mean
        padded = np.zeros((3, h, w), dtype=np.float32) + mean
        padded[:, :H, :W] = image
        return padded / 127.5 - 1.0

    def forward(self, x: Any) -> Any:
        """Logits of images ``x`` at a quarter of the input resolution."""
        lowlevel, highlevel = self.feature_extractor(x)
        return self.decoder(lowlevel, self.aspp(highlevel))

    def _get_proba(self, img: np.ndarray, scale: float, flip: bool) -> np.ndarray:
        if flip:
            img = img[:, :, ::-1]
        _, H, W = img.shape
        h, w = H, W
        if scale != 1.0:
            h, w = int(H * scale), int(W * scale)
            img = transforms.resize(img, (h, w))
        x = self.prepare(img)
        probs = F.softmax(self.forward(self.xp.asarray(x[np.newaxis])), axis=1)
        score = cuda.to_cpu(F.resize_images(probs, x.shape[1:])[0, :, :h, :w].array)
        if scale != 1.0:
            score = transforms.resize(score, (H, W))
        if flip:
            score = score[:, :, ::-1]
        return np.asarray(score)

    def predict(self, imgs: Iterable[np.ndarray]) -> list[np.ndarray]:
        """Segments images.

        Args:
            imgs: CHW, RGB images with values in ``[0, 255]``.

        Returns:
            One int32 ``(H, W)`` label map per image.
        """
        labels = []
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            for img in imgs:
                score = sum(
                    self._get_proba(img, scale, flip)
                    for scale in self.scales
                    for flip in ((False, True) if self.flip else (False,))
                )
                labels.append(np.argmax(score, axis=0).astype(np.int32))
        return labels


_BN = {
    "extractor_kwargs": {"bn_kwargs": {"decay": 0.9997, "eps": 1e-3}},
    "aspp_kwargs": {"bn_kwargs": {"decay": 0.9997, "eps": 1e-5}},
    "decoder_kwargs": {"bn_kwargs": {"decay": 0.9997, "eps": 1e-5}},
}


def _preset(n_class: int, min_input_size: tuple[int, int], file: str) -> dict[str, Any]:
    return {
        "param": {
            "n_class": n_class,
            "min_input_size": min_input_size,
            "scales": (1.0,),
            "flip": False,
            **_BN,
        },
        "overwritable": ("scales", "flip"),
        "url": "https://chainercv-models.preferred.jp/" + file,
    }


class DeepLabV3plusXception65(DeepLabV3plus):
    """DeepLab v3+ on Xception-65 (output stride 8, decoder at stride 4).

    Args:
        n_class: Number of classes; required unless a preset gives it.
        pretrained_model: ``'voc'``, ``'cityscapes'``, ``'ade20k'`` (weights
            converted from TensorFlow's DeepLab), an ``.npz`` path, or None.
        min_input_size: See :class:`DeepLabV3plus`; ``(513, 513)`` by default.
        scales: See :class:`DeepLabV3plus`; ``(1.0,)`` by default.
        flip: See :class:`DeepLabV3plus`; False by default.
        extractor_kwargs: Keyword arguments of :class:`Xception65`.
        aspp_kwargs: Keyword arguments of :class:`SeparableASPP`.
        decoder_kwargs: Keyword arguments of :class:`Decoder`.
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc": _preset(
            21, (513, 513), "deeplabv3plus_xception65_voc_converted_2019_02_15.npz"
        ),
        "cityscapes": _preset(
            19,
            (1025, 2049),
            "deeplabv3plus_xception65_cityscapes_converted_2019_02_15.npz",
        ),
        "ade20k": _preset(
            150, (513, 513), "deeplabv3plus_xception65_ade20k_converted_2019_03_08.npz"
        ),
    }

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        min_input_size: int | tuple[int, int] | None = None,
        scales: Sequence[float] | None = None,
        flip: bool | None = None,
        extractor_kwargs: dict[str, Any] | None = None,
        aspp_kwargs: dict[str, Any] | None = None,
        decoder_kwargs: dict[str, Any] | None = None,
    ) -> None:
        param, path = utils.prepare_pretrained_model(
            {
                "n_class": n_class,
                "min_input_size": min_input_size,
                "scales": scales,
                "flip": flip,
                "extractor_kwargs": extractor_kwargs,
                "aspp_kwargs": aspp_kwargs,
                "decoder_kwargs": decoder_kwargs,
            },
            pretrained_model,
            self._models,
            {
                "min_input_size": (513, 513),
                "scales": (1.0,),
                "flip": False,
                "extractor_kwargs": {},
                "aspp_kwargs": {},
                "decoder_kwargs": {},
            },
        )
        super().__init__(
            Xception65(**param["extractor_kwargs"]),
            SeparableASPP(2048, 256, **param["aspp_kwargs"]),
            Decoder(256, param["n_class"], 48, 256, **param["decoder_kwargs"]),
            min_input_size=param["min_input_size"],
            scales=param["scales"],
            flip=param["flip"],
        )
        if path:
            kusari.serializers.load_npz(path, self)
