"""PSPNet (Zhao et al., CVPR 2017) on a dilated ResNet."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

import kusari
import kusari.functions as F
import kusari.initializers as I
import kusari.links as L
from kusari.backends import cuda
from kusari_cv import transforms, utils
from kusari_cv.links.connection import Conv2DBNActiv
from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain
from kusari_cv.links.model.pspnet.transforms import convolution_crop
from kusari_cv.links.model.resnet.resblock import ResBlock

_imagenet_mean = np.array([123.68, 116.779, 103.939], dtype=np.float32)[
    :, np.newaxis, np.newaxis
]

_URL = "https://chainercv-models.preferred.jp/"


class PyramidPoolingModule(kusari.ChainList):
    """Pools the features at several grid sizes and stacks them on the input.

    For each grid size ``g`` in ``pyramids`` the features are average-pooled
    to about ``g x g`` cells (window ``feat_size // g``), projected by a 1x1
    Conv-BN-ReLU to ``in_channels // len(pyramids)`` channels and resized
    back; the result is the input concatenated with all of them.

    Args:
        in_channels: Channels of the input features.
        feat_size: ``(height, width)`` of the input features.
        pyramids: Grid sizes.
        initialW: Initializer of the 1x1 convolutions.
    """

    def __init__(
        self,
        in_channels: int,
        feat_size: tuple[int, int],
        pyramids: Sequence[int],
        initialW: Any = None,
    ) -> None:
        out_channels = in_channels // len(pyramids)
        super().__init__(
            *[
                Conv2DBNActiv(in_channels, out_channels, 1, 1, 0, 1, initialW=initialW)
                for _ in pyramids
            ]
        )
        self.ksizes = [
            (max(feat_size[0] // p, 1), max(feat_size[1] // p, 1)) for p in pyramids
        ]

    def forward(self, x: Any) -> Any:
        """``x`` concatenated with its pooled, projected and resized copies."""
        H, W = x.shape[2:]
        ys = [x]
        for link, ksize in zip(self, self.ksizes, strict=True):
            y = link(F.average_pooling_2d(x, ksize, ksize))
            ys.append(F.resize_images(y, (H, W)))
        return F.concat(ys, axis=1)


class DilatedResNet(PickableSequentialChain):
    """ResNet whose last two stages dilate instead of striding (output stride 8).

    The stem is three 3x3 Conv-BN-ReLUs (``conv1_1`` ... ``conv1_3``) and a
    padded max pooling; ``res4`` and ``res5`` use dilation 2 and 4.

    Args:
        n_layer: 50 or 101.
        pretrained_model: ``'imagenet'``, an ``.npz`` path, or None.
        initialW: Initializer of the convolution kernels.
    """

    _blocks = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3)}

    _models: ClassVar[dict[int, dict[str, Any]]] = {
        50: {
            "imagenet": {
                "url": _URL + "pspnet_resnet50_imagenet_trained_2018_11_26.npz",
                "cv2": True,
            }
        },
        101: {
            "imagenet": {
                "url": _URL + "pspnet_resnet101_imagenet_trained_2018_11_26.npz",
                "cv2": True,
            }
        },
    }

    def __init__(
        self, n_layer: int, pretrained_model: str | None = None, initialW: Any = None
    ) -> None:
        if n_layer not in self._blocks:
            raise ValueError(f"DilatedResNet: n_layer must be 50 or 101, got {n_layer}")
        blocks = self._blocks[n_layer]
        _, path = utils.prepare_pretrained_model(
            {}, pretrained_model, self._models[n_layer]
        )
        super().__init__()
        kw = {"initialW": initialW, "stride_first": False}
        with self.init_scope():
            self.conv1_1 = Conv2DBNActiv(None, 64, 3, 2, 1, 1, initialW=initialW)
            self.conv1_2 = Conv2DBNActiv(64, 64, 3, 1, 1, 1, initialW=initialW)
            self.conv1_3 = Conv2DBNActiv(64, 128, 3, 1, 1, 1, initialW=initialW)
            self.pool1 = _max_pooling_3x3s2p1
            self.res2 = ResBlock(blocks[0], 128, 64, 256, 1, 1, **kw)
            self.res3 = ResBlock(blocks[1], 256, 128, 512, 2, 1, **kw)
            self.res4 = ResBlock(blocks[2], 512, 256, 1024, 1, 2, **kw)
            self.res5 = ResBlock(blocks[3], 1024, 512, 2048, 1, 4, **kw)
        if path:
            kusari.serializers.load_npz(path, self)


def _max_pooling_3x3s2p1(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2, pad=1)


class PSPNet(kusari.Chain):
    """Pyramid Scene Parsing Network for semantic segmentation.

    A dilated ResNet extracts stride-8 features, a
    :class:`PyramidPoolingModule` adds context at four scales, and two
    convolutions give class scores that are resized to the input size.
    :meth:`predict` runs on ``input_size`` tiles (sliding window for larger
    images, padding for smaller) and averages each with its mirror image.

    Args:
        n_class: Number of classes; required unless a preset gives it.
        pretrained_model: ``'cityscapes'``, ``'ade20k'``, ``'imagenet'``
            (pretrained extractor only), an ``.npz`` path, or None.
        input_size: ``(height, width)`` of the network's input (an int for
            a square); the preset's, else ``(713, 713)``, when None.
        initialW: Initializer of the convolution kernels.

    Attributes:
        scales: None, or scale factors for multi-scale prediction.
        mean: Mean subtracted from images in :meth:`predict`.
    """

    _extractor_cls: ClassVar[type[DilatedResNet]] = DilatedResNet
    _extractor_kwargs: ClassVar[dict[str, Any]] = {}
    _extractor_pick: ClassVar[tuple[str, str]] = ("res4", "res5")
    _models: ClassVar[dict[str, dict[str, Any]]] = {}

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        input_size: int | tuple[int, int] | None = None,
        initialW: Any = None,
    ) -> None:
        super().__init__()
        extractor_pretrained = None
        if pretrained_model == "imagenet":
            extractor_pretrained, pretrained_model = "imagenet", None
        param, path = utils.prepare_pretrained_model(
            {"n_class": n_class, "input_size": input_size},
            pretrained_model,
            self._models,
            {"input_size": (713, 713)},
        )
        size = param["input_size"]
        if not isinstance(size, (list, tuple)):
            size = (int(size), int(size))
        self.input_size = tuple(size)
        if initialW is None and pretrained_model:
            initialW = I.Zero()  # overwritten by the weights; skip sampling

        extractor = self._extractor_cls(
            **self._extractor_kwargs,
            pretrained_model=extractor_pretrained,
            initialW=initialW,
        )
        extractor.pick = self._extractor_pick
        self.scales: Sequence[float] | None = None
        self.mean = _imagenet_mean
        feat_size = (self.input_size[0] // 8, self.input_size[1] // 8)
        with self.init_scope():
            self.extractor = extractor
            self.ppm = PyramidPoolingModule(
                2048, feat_size, (6, 3, 2, 1), initialW=initialW
            )
            self.head_conv1 = Conv2DBNActiv(4096, 512, 3, 1, 1, initialW=initialW)
            self.head_conv2 = L.Convolution2D(
                512, param["n_class"], 1, 1, 0, False, initialW
            )
        if path:
            kusari.serializers.load_npz(path, self)

    @property
    def n_class(self) -> int:
        """Number of classes."""
        return int(self.head_conv2.out_channels)

    def forward(self, x: Any) -> Any:
        """Class scores ``(B, n_class, H, W)`` of images ``x``."""
        _, res5 = self.extractor(x)
        h = self.head_conv2(self.head_conv1(self.ppm(res5)))
        return F.resize_images(h, x.shape[2:])

    def _predict(self, imgs: np.ndarray) -> Any:
        """Softmax scores of a batch (test mode)."""
        with kusari.using_config("train", False):
            return F.softmax(self.forward(self.xp.asarray(imgs))).array

    def _tile_predict(self, img: np.ndarray) -> Any:
        """Scores ``(n_class, H, W)`` of one mean-subtracted image."""
        img = (img - self.mean).astype(np.float32)
        H, W = img.shape[1:]
        xp = self.xp
        if max(H, W) > max(self.input_size):
            stride = tuple(math.ceil(s * 2 / 3) for s in self.input_size)
            tiles, param = convolution_crop(
                img, self.input_size, stride, return_param=True
            )
            preds = xp.zeros((1, self.n_class, H, W), dtype=np.float32)
            counts = xp.zeros((1, H, W), dtype=np.float32)
            for i in range(len(tiles)):
                tile = tiles[i : i + 1]
                scores = self._predict(tile)
                flipped = self._predict(tile[:, :, :, ::-1].copy())[:, :, :, ::-1]
                ys, xs = param["y_slices"][i], param["x_slices"][i]
                cys, cxs = param["crop_y_slices"][i], param["crop_x_slices"][i]
                preds[0, :, ys, xs] += scores[0, :, cys, cxs] + flipped[0, :, cys, cxs]
                counts[0, ys, xs] += 2
            scores = preds / counts[:, None]
        else:
            padded, param = transforms.resize_contain(
                img, self.input_size, return_param=True
            )
            batch = padded[np.newaxis]
            preds = (
                self._predict(batch)
                + self._predict(batch[:, :, :, ::-1].copy())[:, :, :, ::-1]
            ) / 2
            y0, x0 = param["y_offset"], param["x_offset"]
            sh, sw = param["scaled_size"]
            scores = preds[:, :, y0 : y0 + sh, x0 : x0 + sw]
        return F.resize_images(scores, (H, W))[0].array

    def predict(self, imgs: Iterable[np.ndarray]) -> list[np.ndarray]:
        """Segments images.

        Args:
            imgs: CHW, RGB images with values in ``[0, 255]``.

        Returns:
            One int32 ``(H, W)`` label map per image.
        """
        labels = []
        for img in imgs:
            with kusari.using_config("train", False), kusari.no_backprop_mode():
                if self.scales is None:
                    scores = self._tile_predict(img)
                else:
                    scores = _multiscale_predict(self._tile_predict, img, self.scales)
            labels.append(cuda.to_cpu(self.xp.argmax(scores, axis=0).astype(np.int32)))
        return labels


def _multiscale_predict(predict: Any, img: np.ndarray, scales: Sequence[float]) -> Any:
    """Averages ``predict``'s scores over rescaled copies of ``img``."""
    H, W = img.shape[1:]
    total = None
    for scale in scales:
        scaled = img
        if scale != 1.0:
            scaled = transforms.resize(img, (int(H * scale), int(W * scale)))
        y = predict(scaled)[np.newaxis]
        if scale != 1.0:
            y = F.resize_images(y, (H, W)).array
        total = y if total is None else total + y
    assert total is not None, "scales must not be empty"
    return (total / len(scales))[0]


class PSPNetResNet50(PSPNet):
    """PSPNet on a dilated ResNet-50; see :class:`PSPNet`.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import PSPNetResNet50
        >>> model = PSPNetResNet50(n_class=3, input_size=(48, 48))
        >>> model(np.zeros((1, 3, 48, 48), np.float32)).shape
        (1, 3, 48, 48)
    """

    _extractor_kwargs: ClassVar[dict[str, Any]] = {"n_layer": 50}
    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "cityscapes": {
            "param": {"n_class": 19, "input_size": (713, 713)},
            "url": _URL + "pspnet_resnet50_cityscapes_trained_2018_12_19.npz",
        },
        "ade20k": {
            "param": {"n_class": 150, "input_size": (473, 473)},
            "url": _URL + "pspnet_resnet50_ade20k_trained_2018_12_23.npz",
        },
    }


class PSPNetResNet101(PSPNet):
    """PSPNet on a dilated ResNet-101; see :class:`PSPNet`."""

    _extractor_kwargs: ClassVar[dict[str, Any]] = {"n_layer": 101}
    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "cityscapes": {
            "param": {"n_class": 19, "input_size": (713, 713)},
            "url": _URL + "pspnet_resnet101_cityscapes_trained_2018_12_19.npz",
        },
        "ade20k": {
            "param": {"n_class": 150, "input_size": (473, 473)},
            "url": _URL + "pspnet_resnet101_ade20k_trained_2018_12_23.npz",
        },
    }
