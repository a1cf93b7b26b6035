"""SE-ResNet-50/101/152 (Hu et al., "Squeeze-and-Excitation Networks")."""

from __future__ import annotations

from typing import Any

from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain
from kusari_cv.links.model.resnet.resnet import _preset, build_classifier

# The SENet authors' released weights expect the same ImageNet mean as the
# original ResNets (``resnet._imagenet_mean``), which ``_preset`` sets.


class _SENetBase(PickableSequentialChain):
    """What :class:`SEResNet` and
    :class:`~kusari_cv.links.model.senet.SEResNeXt` share: a ResNet-style
    classifier with SE blocks, built by depth (``n_layer``) from the class's
    ``_blocks``, ``_models``, ``_mid_channels`` and ``_block_kwargs``.
    """

    _blocks: dict[int, tuple[int, ...]]
    _models: dict[int, dict[str, Any]]
    _mid_channels: tuple[int, ...]
    _block_kwargs: dict[str, Any]

    def __init__(
        self,
        n_layer: int,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        build_classifier(
            self,
            n_layer,
            self._blocks,
            self._models,
            self._mid_channels,
            n_class,
            pretrained_model,
            mean,
            initialW,
            fc_kwargs,
            add_seblock=True,
            **self._block_kwargs,
        )


class SEResNet(_SENetBase):
    """ResNet with a squeeze-and-excitation block in every bottleneck.

    Layers and :attr:`pick` as in :class:`~kusari_cv.links.model.resnet.ResNet`
    (``conv1``, ``pool1``, ``res2`` ... ``res5``, ``pool5``, ``fc6``,
    ``prob``); the stride sits in each stage's first 1x1 convolution.

    Args:
        n_layer: 50, 101 or 152.
        n_class: Number of classes; the preset's (or 1000) when None.
        pretrained_model: ``'imagenet'`` (weights converted from the SENet
            authors' release), an ``.npz`` path, or None.
        mean: Mean image ``(3, 1, 1)``; the preset's when None.
        initialW: Initializer of the convolution kernels.
        fc_kwargs: Keyword arguments of the final Linear.
    """

    _blocks = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}

    _models: dict[int, dict[str, Any]] = {
        50: {"imagenet": _preset("se_resnet50_imagenet_converted_2018_06_25.npz")},
        101: {"imagenet": _preset("se_resnet101_imagenet_converted_2018_06_25.npz")},
        152: {"imagenet": _preset("se_resnet152_imagenet_converted_2018_06_25.npz")},
    }

    _mid_channels = (64, 128, 256, 512)
    _block_kwargs: dict[str, Any] = {"stride_first": True}


class SEResNet50(SEResNet):
    """SE-ResNet-50; see :class:`SEResNet`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(50, n_class, pretrained_model, mean, initialW, fc_kwargs)


class SEResNet101(SEResNet):
    """SE-ResNet-101; see :class:`SEResNet`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(101, n_class, pretrained_model, mean, initialW, fc_kwargs)


class SEResNet152(SEResNet):
    """SE-ResNet-152; see :class:`SEResNet`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(152, n_class, pretrained_model, mean, initialW, fc_kwargs)
