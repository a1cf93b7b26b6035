"""FPN Faster R-CNN on ResNet-50 / ResNet-101 (ChainerCV's layer names)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import serializers
from kusari_cv import utils
from kusari_cv.links.model.fpn.bbox_head import BboxHead
from kusari_cv.links.model.fpn.faster_rcnn import FasterRCNN
from kusari_cv.links.model.fpn.fpn import FPN
from kusari_cv.links.model.fpn.mask_head import MaskHead
from kusari_cv.links.model.fpn.rpn import RPN
from kusari_cv.links.model.resnet import ResNet50, ResNet101

_URL = "https://chainercv-models.preferred.jp/"


def _coco(model: str) -> dict[str, dict[str, Any]]:
    """The ``'coco'`` preset (80 classes) of ``<model>_coco_trained_2019_03_15``."""
    return {
        "coco": {
            "param": {"n_fg_class": 80},
            "url": f"{_URL}{model}_coco_trained_2019_03_15.npz",
            "cv2": True,
        },
    }


def _pool1(x: Any) -> Any:
    # padded 3x3 pooling so every pyramid level is exactly half the previous
    return F.max_pooling_2d(x, 3, stride=2, pad=1, cover_all=False)


def _copyparams(dst: Any, src: Any) -> None:
    if isinstance(dst, kusari.Chain):
        for link in dst.children():
            _copyparams(link, src[link.name])
    elif isinstance(dst, kusari.ChainList):
        for i, link in enumerate(dst):
            _copyparams(link, src[i])
    else:
        dst.copyparams(src)
        if isinstance(dst, L.BatchNormalization):
            dst.avg_mean[...] = src.avg_mean
            dst.avg_var[...] = src.avg_var


class FasterRCNNFPNResNet(FasterRCNN):
    """Base of :class:`FasterRCNNFPNResNet50` and :class:`FasterRCNNFPNResNet101`.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'coco'`` (80 classes), ``'imagenet'`` (ResNet
            weights only), an npz path in ChainerCV's layout, or None.
        return_values: What ``predict`` returns (see :class:`FasterRCNN`);
            with ``'masks'`` the model has a mask head (Mask R-CNN).
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
    """

    _base: ClassVar[type[Any]]
    _models: ClassVar[dict[str, dict[str, Any]]]

    def __init__(
        self,
        n_fg_class: int | None = None,
        pretrained_model: str | None = None,
        return_values: Sequence[str] = ("bboxes", "labels", "scores"),
        min_size: int = 800,
        max_size: int = 1333,
    ) -> None:
        imagenet = pretrained_model == "imagenet"
        param, path = utils.prepare_pretrained_model(
            {"n_fg_class": n_fg_class},
            None if imagenet else pretrained_model,
            self._models,
        )
        base = self._base(n_class=1, arch="he")
        base.pick = ("res2", "res3", "res4", "res5")
        base.pool1 = _pool1
        base.remove_unused()
        extractor = FPN(base, len(base.pick), (1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64))
        super().__init__(
            extractor=extractor,
            rpn=RPN(extractor.scales),
            bbox_head=BboxHead(param["n_fg_class"] + 1, extractor.scales),
            mask_head=MaskHead(param["n_fg_class"] + 1, extractor.scales),
            return_values=return_values,
            min_size=min_size,
            max_size=max_size,
        )
        if imagenet:
            extractor_any: Any = self.extractor
            _copyparams(
                extractor_any.base, self._base(pretrained_model="imagenet", arch="he")
            )
        elif path:
            serializers.load_npz(path, self)


class FasterRCNNFPNResNet50(FasterRCNNFPNResNet):
    """FPN Faster R-CNN with a ResNet-50 base (see :class:`FasterRCNNFPNResNet`)."""

    _base = ResNet50
    _models: ClassVar[dict[str, dict[str, Any]]] = _coco("faster_rcnn_fpn_resnet50")


class FasterRCNNFPNResNet101(FasterRCNNFPNResNet):
    """FPN Faster R-CNN with a ResNet-101 base (see :class:`FasterRCNNFPNResNet`)."""

    _base = ResNet101
    _models: ClassVar[dict[str, dict[str, Any]]] = _coco("faster_rcnn_fpn_resnet101")


class MaskRCNNFPNResNet(FasterRCNNFPNResNet):
    """Mask R-CNN: :class:`FasterRCNNFPNResNet` returning masks by default."""

    def __init__(
        self,
        n_fg_class: int | None = None,
        pretrained_model: str | None = None,
        return_values: Sequence[str] = ("masks", "labels", "scores"),
        min_size: int = 800,
        max_size: int = 1333,
    ) -> None:
        super().__init__(
            n_fg_class, pretrained_model, return_values, min_size, max_size
        )


class MaskRCNNFPNResNet50(MaskRCNNFPNResNet):
    """Mask R-CNN with a ResNet-50 FPN base (see :class:`FasterRCNNFPNResNet`)."""

    _base = ResNet50
    _models: ClassVar[dict[str, dict[str, Any]]] = _coco("mask_rcnn_fpn_resnet50")


class MaskRCNNFPNResNet101(MaskRCNNFPNResNet):
    """Mask R-CNN with a ResNet-101 FPN base (see :class:`FasterRCNNFPNResNet`)."""

    _base = ResNet101
    _models: ClassVar[dict[str, dict[str, Any]]] = _coco("mask_rcnn_fpn_resnet101")
