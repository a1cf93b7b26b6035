import os

import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets import SBDInstanceSegmentationDataset
from kusari_cv.datasets.sbd import sbd_utils

scipy_io = pytest.importorskip("scipy.io")

H, W = 5, 7


def _savemat(path, struct, segmentation):
    # SBD's files hold a 1x1 struct with a "Segmentation" field (and others).
    value = np.zeros((1, 1), dtype=[("Segmentation", object), ("Boundaries", object)])
    value[0, 0]["Segmentation"] = segmentation.astype(np.uint8)
    value[0, 0]["Boundaries"] = np.zeros((1, 1))
    scipy_io.savemat(path, {struct: value})


@pytest.fixture
def sbd_dir(tmp_path):
    base = tmp_path / "dataset"
    for sub in ("img", "cls", "inst"):
        (base / sub).mkdir(parents=True)
    cls = np.zeros((H, W), np.uint8)
    inst = np.zeros((H, W), np.uint8)
    cls[0:2, 0:3], inst[0:2, 0:3] = 7, 1  # car
    cls[3:5, 2:7], inst[3:5, 2:7] = 3, 2  # bird
    cls[1, 4], inst[1, 4] = 3, 3  # a one-pixel bird
    Image.fromarray(np.full((H, W, 3), 99, np.uint8)).save(base / "img" / "x.jpg")
    _savemat(str(base / "cls" / "x.mat"), "GTcls", cls)
    _savemat(str(base / "inst" / "x.mat"), "GTinst", inst)
    (base / "train_voc2012.txt").write_text("x\n")
    return str(base)


def test_reads_instances_from_matlab_files(sbd_dir):
    d = SBDInstanceSegmentationDataset(sbd_dir, split="train")
    assert d.keys == ("img", "mask", "label")
    img, mask, label = d[0]
    assert img.shape == (3, H, W)
    assert mask.shape == (3, H, W) and mask.dtype == bool
    np.testing.assert_array_equal(label, [6, 2, 2])  # car, bird, bird
    assert label.dtype == np.int32
    assert mask[0].sum() == 6 and mask[1].sum() == 10 and mask[2].sum() == 1
    assert mask[2][1, 4]


def test_errors(sbd_dir):
    with pytest.raises(FileNotFoundError, match=r"val_voc2012\.txt"):
        SBDInstanceSegmentationDataset(sbd_dir, split="val")
    with pytest.raises(ValueError, match="split must be"):
        SBDInstanceSegmentationDataset(sbd_dir, split="test")
    os.remove(os.path.join(sbd_dir, "inst", "x.mat"))
    with pytest.raises(FileNotFoundError, match="GTinst"):
        SBDInstanceSegmentationDataset(sbd_dir)[0]
    scipy_io.savemat(os.path.join(sbd_dir, "inst", "x.mat"), {"other": 1})
    with pytest.raises(ValueError, match="no 'GTinst' struct"):
        SBDInstanceSegmentationDataset(sbd_dir)[0]


def test_voc2012_lists_are_derived_from_sbd_lists(tmp_path):
    (tmp_path / "train.txt").write_text("a\nb\nc\n")
    (tmp_path / "val.txt").write_text("d\ne\n")
    (tmp_path / "train_voc2012.txt").write_text("a\nd\n")
    sbd_utils._generate_voc2012_lists(str(tmp_path))
    assert (tmp_path / "val_voc2012.txt").read_text().split() == ["b", "c", "e"]
    assert (tmp_path / "trainval_voc2012.txt").read_text().split() == list("abcde")
