"""Image datasets default to ``config.dtype``, as Chainer's do.

Chainer's ImageNet example sets ``chainer.config.dtype = 'float16'`` and then
reads images with ``LabeledImageDataset(path, root)``; the images must come
out in float16 to meet the float16 parameters (the run failed with "Expect:
b.dtype == x.dtype" while kusari's default stayed float32).
"""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import kusari
from kusari.datasets import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)

PIL = pytest.importorskip("PIL.Image")


@pytest.fixture
def images(tmp_path):
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    PIL.fromarray(pixels).save(tmp_path / "a.png")
    with zipfile.ZipFile(tmp_path / "imgs.zip", "w") as z:
        z.write(tmp_path / "a.png", "a.png")
    (tmp_path / "labels.txt").write_text("a.png 1\n")
    return tmp_path, pixels


def _datasets(root):
    return {
        "ImageDataset": lambda **kw: ImageDataset(["a.png"], root=str(root), **kw),
        "LabeledImageDataset": lambda **kw: LabeledImageDataset(
            [("a.png", 1)], root=str(root), **kw
        ),
        "ZippedImageDataset": lambda **kw: ZippedImageDataset(
            str(root / "imgs.zip"), **kw
        ),
        "MultiZippedImageDataset": lambda **kw: MultiZippedImageDataset(
            [str(root / "imgs.zip")], **kw
        ),
        "LabeledZippedImageDataset": lambda **kw: LabeledZippedImageDataset(
            str(root / "imgs.zip"), str(root / "labels.txt"), **kw
        ),
    }


def _image(example):
    return example[0] if isinstance(example, tuple) else example


@pytest.mark.parametrize(
    "kind",
    [
        "ImageDataset",
        "LabeledImageDataset",
        "ZippedImageDataset",
        "MultiZippedImageDataset",
        "LabeledZippedImageDataset",
    ],
)
@pytest.mark.parametrize(
    ("setting", "expected"),
    [("float16", np.float16), ("float64", np.float64), ("mixed16", np.float16)],
)
def test_default_dtype_follows_config(images, kind, setting, expected):
    root, pixels = images
    make = _datasets(root)[kind]
    value = kusari.mixed16 if setting == "mixed16" else np.dtype(setting)
    with kusari.using_config("dtype", value):
        dataset = make()
    image = _image(dataset[0])
    assert image.dtype == expected
    np.testing.assert_array_equal(image, pixels.transpose(2, 0, 1).astype(expected))


@pytest.mark.parametrize("kind", ["ImageDataset", "LabeledImageDataset"])
def test_default_is_read_when_the_dataset_is_made(images, kind):
    root, _ = images
    make = _datasets(root)[kind]
    dataset = make()  # config.dtype is float32 here
    with kusari.using_config("dtype", np.dtype(np.float16)):
        assert _image(dataset[0]).dtype == np.float32


@pytest.mark.parametrize("kind", ["ImageDataset", "LabeledImageDataset"])
def test_explicit_dtype_wins(images, kind):
    root, _ = images
    with kusari.using_config("dtype", np.dtype(np.float16)):
        dataset = _datasets(root)[kind](dtype=np.float64)
    assert _image(dataset[0]).dtype == np.float64
