import os

import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets import (
    ADE20KSemanticSegmentationDataset,
    ADE20KTestImageDataset,
    ade20k_semantic_segmentation_label_colors,
    ade20k_semantic_segmentation_label_names,
)


def _save(path, array, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(array, mode).save(path, quality=100)


@pytest.fixture
def ade_dir(tmp_path):
    base = os.path.join(str(tmp_path), "ADEChallengeData2016")
    for i, name in enumerate(("ADE_val_00000002", "ADE_val_00000001")):
        _save(
            os.path.join(base, "images", "validation", name + ".jpg"),
            np.full((3, 4, 3), 40 * (i + 1), np.uint8),
        )
        _save(
            os.path.join(base, "annotations", "validation", name + ".png"),
            np.array([[0, 1, 150, i], [2, 2, 2, 2], [0, 0, 0, 0]], np.uint8),
            "L",
        )
    _save(
        os.path.join(str(tmp_path), "release_test", "testing", "ADE_test_1.jpg"),
        np.full((5, 2, 3), 70, np.uint8),
    )
    return str(tmp_path)


def test_labels_are_shifted_so_other_is_minus_one(ade_dir):
    d = ADE20KSemanticSegmentationDataset(ade_dir, split="val")
    assert len(d) == 2 and d.keys == ("img", "label")
    img, label = d[0]  # sorted: ..._00000001 first
    assert img.shape == (3, 3, 4)
    np.testing.assert_allclose(img, 80, atol=2)
    np.testing.assert_array_equal(label[0], [-1, 0, 149, 0])
    assert label.dtype == np.int32
    assert len(ade20k_semantic_segmentation_label_names) == 150
    assert len(ade20k_semantic_segmentation_label_colors) == 150


def test_test_images(ade_dir):
    d = ADE20KTestImageDataset(ade_dir)
    assert len(d) == 1 and d.keys == "img"
    assert d[0].shape == (3, 5, 2)


def test_errors(ade_dir):
    with pytest.raises(FileNotFoundError, match="training"):
        ADE20KSemanticSegmentationDataset(ade_dir, split="train")
    os.remove(
        os.path.join(
            ade_dir, "ADEChallengeData2016", "annotations", "validation",
            "ADE_val_00000002.png",
        )
    )  # fmt: skip
    with pytest.raises(FileNotFoundError, match="ADE_val_00000002"):
        ADE20KSemanticSegmentationDataset(ade_dir, split="val")
    with pytest.raises(ValueError, match="split must be"):
        ADE20KSemanticSegmentationDataset(ade_dir, split="test")
