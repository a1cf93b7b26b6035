import os

import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets import (
    CityscapesSemanticSegmentationDataset,
    CityscapesTestImageDataset,
    cityscapes_semantic_segmentation_label_names,
)


def _png(path, array, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(array, mode).save(path)


@pytest.fixture
def cityscapes_dir(tmp_path):
    root = str(tmp_path)
    ids = np.array([[7, 8, 0], [26, 33, 9]], np.uint8)  # road, sidewalk, ...
    for city, name in (
        ("bonn", "bonn_000000_000019"),
        ("aachen", "aachen_000001_000019"),
    ):
        _png(
            os.path.join(root, "leftImg8bit", "train", city, name + "_leftImg8bit.png"),
            np.full((2, 3, 3), 10, np.uint8),
        )
        _png(
            os.path.join(root, "gtFine", "train", city, name + "_gtFine_labelIds.png"),
            ids,
            "L",
        )
    _png(
        os.path.join(root, "leftImg8bit", "test", "berlin", "b_0_0_leftImg8bit.png"),
        np.full((4, 5, 3), 200, np.uint8),
    )
    return root


def test_labels_become_train_ids(cityscapes_dir):
    d = CityscapesSemanticSegmentationDataset(cityscapes_dir, "fine", "train")
    assert len(d) == 2
    assert "aachen" in d.img_paths[0]  # sorted
    img, label = d[0]
    assert img.shape == (3, 2, 3) and img.dtype == np.float32
    # road 0, sidewalk 1, unlabeled -1, car 13, bicycle 18, parking -1
    np.testing.assert_array_equal(label, [[0, 1, -1], [13, 18, -1]])
    assert label.dtype == np.int32
    assert len(cityscapes_semantic_segmentation_label_names) == 19
    raw = CityscapesSemanticSegmentationDataset(
        cityscapes_dir, "fine", "train", ignore_labels=False
    )
    np.testing.assert_array_equal(raw[0][1], [[7, 8, 0], [26, 33, 9]])


def test_errors(cityscapes_dir):
    with pytest.raises(ValueError, match="label_resolution"):
        CityscapesSemanticSegmentationDataset(cityscapes_dir)
    with pytest.raises(FileNotFoundError, match="gtCoarse.*cityscapes-dataset"):
        CityscapesSemanticSegmentationDataset(cityscapes_dir, "coarse")
    for name in os.listdir(
        os.path.join(cityscapes_dir, "leftImg8bit", "train", "bonn")
    ):
        os.remove(os.path.join(cityscapes_dir, "leftImg8bit", "train", "bonn", name))
    d = CityscapesSemanticSegmentationDataset(cityscapes_dir, "fine")
    with pytest.raises(FileNotFoundError, match="bonn"):
        d[1]


def test_test_images_are_bare_arrays(cityscapes_dir, tmp_path):
    d = CityscapesTestImageDataset(cityscapes_dir)
    assert len(d) == 1 and d.keys == "img"
    img = d[0]
    assert img.shape == (3, 4, 5)
    np.testing.assert_array_equal(img, 200)
    with pytest.raises(FileNotFoundError, match="leftImg8bit test folder"):
        CityscapesTestImageDataset(str(tmp_path / "empty"))
