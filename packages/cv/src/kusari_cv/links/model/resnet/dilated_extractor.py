"""The dilated ResNet-101 trunk shared by FCIS and Light-Head R-CNN."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kusari
from kusari import initializers
from kusari_cv.links.connection import Conv2DBNActiv
from kusari_cv.links.model.resnet.resblock import ResBlock
from kusari_cv.links.model.resnet.resnet import ResNet101


class DilatedResNet101Extractor(kusari.Chain):
    """ResNet-101 trunk returning ``(res4, res5)``; ``res5`` is dilated, so
    both have stride 16.

    Batch normalization always uses its stored statistics, and ``conv1`` /
    ``res2`` receive no gradient (they stay as pretrained). The parameters
    are named as in ChainerCV's FCIS and Light-Head R-CNN extractors.

    Args:
        pool: The stem's max pooling, applied after ``conv1``.
        initialW: Initializer of the convolutions (He normal by default).
        bn_kwargs: Keyword arguments of the batch normalizations.
    """

    def __init__(
        self,
        pool: Callable[[Any], Any],
        initialW: Any = None,
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if initialW is None:
            initialW = initializers.HeNormal()
        kwargs = {
            "initialW": initialW,
            "bn_kwargs": bn_kwargs,
            "stride_first": True,
        }
        with self.init_scope():
            self.conv1 = Conv2DBNActiv(3, 64, 7, 2, 3, nobias=True, initialW=initialW)
            self.pool1 = pool
            self.res2 = ResBlock(3, 64, 64, 256, 1, **kwargs)
            self.res3 = ResBlock(4, 256, 128, 512, 2, **kwargs)
            self.res4 = ResBlock(23, 512, 256, 1024, 2, **kwargs)
            self.res5 = ResBlock(3, 1024, 512, 2048, 1, 2, **kwargs)

    def forward(self, x: Any) -> tuple[kusari.Variable, kusari.Variable]:
        """``(res4, res5)`` features of ``(B, 3, H, W)`` images."""
        with kusari.using_config("train", False):
            h = self.res2(self.pool1(self.conv1(x)))
            # conv1 and res2 stay as pretrained: cut the graph below res3.
            h.unchain_backward()
            res4 = self.res4(self.res3(h))
            res5 = self.res5(res4)
        return res4, res5

    def copy_imagenet_pretrained_resnet(self) -> None:
        """Copies the weights of ChainerCV's ImageNet ResNet-101 (``'he'``
        arch, downloaded on first use) into this extractor."""
        resnet: Any = ResNet101(arch="he", pretrained_model="imagenet")
        _copy_conv2dbn(resnet.conv1, self.conv1)
        for stage in ("res2", "res3", "res4", "res5"):
            src, dst = getattr(resnet, stage), getattr(self, stage)
            for name in src.layer_names:
                a, b = getattr(src, name), getattr(dst, name)
                for conv in ("conv1", "conv2", "conv3", "residual_conv"):
                    if hasattr(a, conv):
                        _copy_conv2dbn(getattr(a, conv), getattr(b, conv))


def _copy_conv2dbn(src: Any, dst: Any) -> None:
    dst.conv.W.array[...] = src.conv.W.array
    if src.conv.b is not None and dst.conv.b is not None:
        dst.conv.b.array[...] = src.conv.b.array
    for name in ("gamma", "beta"):
        getattr(dst.bn, name).array[...] = getattr(src.bn, name).array
    dst.bn.avg_mean[...] = src.bn.avg_mean
    dst.bn.avg_var[...] = src.bn.avg_var
