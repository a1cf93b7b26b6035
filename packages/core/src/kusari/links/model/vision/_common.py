"""Shared machinery of the pretrained vision models (VGG, ResNet, GoogLeNet)."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy

import kusari
from kusari import configuration, link, variable
from kusari.dataset import convert, download
from kusari.functions.array import reshape as reshape_module
from kusari.functions.math import average as average_module

_MODEL_DIR = "pfnet/chainer/models/"


def load_npz(path: str, model: link.Link) -> None:
    """Load ``path`` into ``model`` (tests replace this to skip big files)."""
    from kusari.serializers import npz

    npz.load_npz(path, model)


def load_cached(name: str, model: link.Link, hint: str) -> None:
    """Load ``name`` from the model cache directory (Chainer's layout under
    the dataset root); kusari never downloads models.

    Raises:
        OSError: If the file is not there.
    """
    root = download.get_dataset_directory(_MODEL_DIR, create_directory=False)
    path = os.path.join(root, name)
    if not os.path.exists(path):
        raise OSError(
            f"{type(model).__name__}: the pre-trained model {path} does not exist. "
            "kusari does not download models: convert the original weights with "
            f"Chainer ({hint}) and pass the npz path as pretrained_model, or place "
            "it at that path."
        )
    load_npz(path, model)


def check_kwargs(kwargs: dict[str, Any], name: str) -> None:
    """Chainer's errors for the arguments removed in v2."""
    for key in ("test", "train", "volatile"):
        if key in kwargs:
            raise ValueError(
                f"{name}: the {key} argument is not supported anymore; use "
                "kusari.using_config"
            )
    if kwargs:
        raise TypeError(
            f"{name} got unexpected keyword arguments: " + ", ".join(sorted(kwargs))
        )


def check_layers(layers: Sequence[str], available: Iterable[str], name: str) -> None:
    if isinstance(layers, str):
        raise TypeError(
            f"{name}: layers must be a list of names, got the str {layers!r}"
        )
    unknown = [key for key in layers if key not in set(available)]
    if unknown:
        raise ValueError(
            f"{name}: unknown layers {unknown}; available layers are {list(available)}"
        )


def run_layers(
    functions: OrderedDict[str, list[Callable[[Any], Any]]],
    x: Any,
    layers: Sequence[str],
    branches: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run ``functions`` in order until every requested layer is computed.

    ``branches`` maps a layer to the earlier layer whose output it starts
    from (GoogLeNet's auxiliary classifiers).
    """
    branches = branches or {}
    sources = set(branches.values())
    saved: dict[str, Any] = {}
    h = x
    activations = {}
    targets = set(layers)
    for key, funcs in functions.items():
        if not targets:
            break
        if key in branches:
            h = saved[branches[key]]
        for func in funcs:
            h = func(h)
        if key in targets:
            activations[key] = h
            targets.remove(key)
        if key in sources:
            saved[key] = h
    return activations


def oversample_images(images: Any, crop_dims: tuple[int, int]) -> Any:
    """Ten crops per image: the four corners and the center, then the same
    five mirrored horizontally.

    Args:
        images: Array of shape ``(N, C, H, W)``.
        crop_dims: ``(h, w)`` of the crops.

    Returns:
        Array of shape ``(10 N, C, h, w)``.
    """
    _, src_h, src_w = images[0].shape
    dst_h, dst_w = crop_dims
    cy, cx = int(src_h / 2.0 - dst_h / 2.0), int(src_w / 2.0 - dst_w / 2.0)
    corners = [
        (0, 0),
        (0, src_w - dst_w),
        (src_h - dst_h, 0),
        (src_h - dst_h, src_w - dst_w),
        (cy, cx),
    ]
    crops = []
    for img in images:
        five = [img[:, y : y + dst_h, x : x + dst_w] for y, x in corners]
        crops.extend(five)
        crops.extend(c[:, :, ::-1] for c in five)
    return numpy.stack(crops)


def to_rgb_image(image: Any) -> Any:
    """A PIL RGB image from a PIL image or an ``(H, W)``, ``(H, W, C)`` or
    ``(C, H, W)`` array."""
    try:
        from PIL import Image
    except ImportError as e:  # Pillow is optional
        raise ImportError(
            f"prepare needs Pillow, which cannot be imported: install Pillow ({e})"
        ) from e
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3:
            if image.shape[0] == 1:
                image = image[0, :, :]
            elif image.shape[0] == 3:
                image = image.transpose((1, 2, 0))
        image = Image.fromarray(image.astype(numpy.uint8))
    return image.convert("RGB")


def prepare_bgr(image: Any, size: Any, mean: Sequence[float], dtype: Any) -> Any:
    """Resize (when ``size``), RGB -> BGR, subtract ``mean``, HWC -> CHW."""
    img = to_rgb_image(image)
    if size:
        img = img.resize(size)
    arr = numpy.asarray(img, dtype=dtype)[:, :, ::-1]
    arr = arr - numpy.array(mean, dtype=dtype)
    return arr.transpose((2, 0, 1))


class PretrainedLayers(link.Chain):
    """Base of the vision models: ``forward(x, layers)``, ``extract``,
    ``predict`` and ``available_layers`` over an ordered ``functions`` table.
    """

    _extract_default = "pool5"
    _branches: dict[str, str] = {}

    @property
    def functions(self) -> OrderedDict[str, list[Callable[[Any], Any]]]:
        raise NotImplementedError

    @property
    def available_layers(self) -> list[str]:
        """Names accepted by ``forward`` and ``extract``."""
        return list(self.functions.keys())

    def _prepare(self, image: Any, size: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def convert_caffemodel_to_npz(
        cls, path_caffemodel: str, path_npz: str, *args: Any
    ) -> None:
        """Not available: it needs Chainer's ``CaffeFunction``.

        Raises:
            NotImplementedError: Always; convert the caffemodel with Chainer
                and load the npz through ``pretrained_model``.
        """
        raise NotImplementedError(
            f"{cls.__name__}.convert_caffemodel_to_npz needs CaffeFunction, which "
            "kusari does not provide: convert the caffemodel with Chainer and pass "
            "the npz as pretrained_model"
        )

    def forward(
        self, x: Any, layers: Sequence[str] | None = None, **kwargs: Any
    ) -> Any:
        """Compute the feature maps of ``layers`` (``['prob']`` by default).

        Args:
            x: Input batch, prepared by this module's ``prepare``.
            layers: Names of the layers to return.

        Returns:
            dict: Layer name -> :class:`~kusari.Variable`.
        """
        name = type(self).__name__
        check_kwargs(kwargs, name)
        if layers is None:
            layers = ["prob"]
        functions = self.functions
        check_layers(layers, functions.keys(), name)
        return run_layers(functions, x, layers, self._branches)

    def extract(
        self,
        images: Iterable[Any],
        layers: Sequence[str] | None = None,
        size: Any = (224, 224),
        **kwargs: Any,
    ) -> Any:
        """Prepare ``images`` (PIL images or arrays) and run ``forward``.

        Unlike :meth:`predict`, it keeps the current ``train`` and
        ``enable_backprop`` settings.
        """
        check_kwargs(kwargs, type(self).__name__)
        if layers is None:
            layers = [self._extract_default]
        x = convert.concat_examples([self._prepare(img, size) for img in images])
        x = variable.Variable(self.xp.asarray(x))
        return self(x, layers=layers)

    def predict(self, images: Iterable[Any], oversample: bool = True) -> Any:
        """Class probabilities of ``images``, averaged over ten crops when
        ``oversample`` (else the 224x224 center crop of a 256x256 resize)."""
        x = convert.concat_examples([self._prepare(img, (256, 256)) for img in images])
        if oversample:
            x = oversample_images(x, (224, 224))
        else:
            x = x[:, :, 16:240, 16:240]
        with kusari.no_backprop_mode(), configuration.using_config("train", False):
            x = variable.Variable(self.xp.asarray(x))
            y = self(x, layers=["prob"])["prob"]
            if oversample:
                n = y.shape[0] // 10
                y = reshape_module.reshape(y, (n, 10) + tuple(y.shape[1:]))
                y = average_module.average(y, axis=1)
        return y
