import hashlib
import os
import tarfile

import numpy as np
import pytest
from PIL import Image

import kusari
from kusari.dataset.download import DownloadError
from kusari_cv.datasets import (
    VOCBboxDataset,
    VOCInstanceSegmentationDataset,
    VOCSemanticSegmentationDataset,
    voc_bbox_label_names,
    voc_semantic_segmentation_label_colors,
)
from kusari_cv.datasets.voc import voc_utils

H, W = 6, 8
COLORS = {"a": (200, 40, 10), "b": (10, 220, 90)}

ANNOTATION = """<annotation>
  <filename>{id}.jpg</filename>
  <size><width>{w}</width><height>{h}</height><depth>3</depth></size>
{objects}</annotation>
"""
OBJECT = """  <object>
    <name>{name}</name><difficult>{difficult}</difficult>
    <bndbox><xmin>{xmin}</xmin><ymin>{ymin}</ymin><xmax>{xmax}</xmax><ymax>{ymax}</ymax></bndbox>
  </object>
"""


def _palette_png(path, array):
    img = Image.new("P", (array.shape[1], array.shape[0]))
    img.putdata(array.astype(np.uint8).ravel().tolist())
    palette = [c for color in voc_semantic_segmentation_label_colors for c in color]
    img.putpalette(palette + [224, 224, 192] * (256 - len(palette) // 3))
    img.save(path)


def write_voc(base):
    """A two-image VOC2012-style folder; returns the expected annotations."""
    for sub in (
        "Annotations",
        "JPEGImages",
        "ImageSets/Main",
        "ImageSets/Segmentation",
        "SegmentationClass",
        "SegmentationObject",
    ):
        os.makedirs(os.path.join(base, sub), exist_ok=True)
    objects = {
        "a": [
            ("dog", 0, (2, 1, 7, 5)),  # xmin, ymin, xmax, ymax (1-based)
            ("Person ", 1, (1, 2, 3, 6)),
        ],
        "b": [],
    }
    for id_, objs in objects.items():
        text = "".join(
            OBJECT.format(
                name=name, difficult=d, xmin=b[0], ymin=b[1], xmax=b[2], ymax=b[3]
            )
            for name, d, b in objs
        )
        with open(os.path.join(base, "Annotations", id_ + ".xml"), "w") as f:
            f.write(ANNOTATION.format(id=id_, w=W, h=H, objects=text))
        img = np.zeros((H, W, 3), dtype=np.uint8) + np.array(COLORS[id_], np.uint8)
        Image.fromarray(img).save(
            os.path.join(base, "JPEGImages", id_ + ".jpg"), quality=100
        )
    for kind in ("Main", "Segmentation"):
        with open(os.path.join(base, "ImageSets", kind, "train.txt"), "w") as f:
            f.write("a\nb\n")
    # Segmentation of "a": a dog (class 12) block and a person (class 15)
    # block with a 255 border; of "b": background only.
    cls = np.zeros((H, W), np.uint8)
    inst = np.zeros((H, W), np.uint8)
    cls[0:3, 0:4], inst[0:3, 0:4] = 12, 1
    cls[3:6, 4:8], inst[3:6, 4:8] = 15, 2
    cls[2, :], inst[2, :] = 255, 255
    _palette_png(os.path.join(base, "SegmentationClass", "a.png"), cls)
    _palette_png(os.path.join(base, "SegmentationObject", "a.png"), inst)
    zeros = np.zeros((H, W), np.uint8)
    _palette_png(os.path.join(base, "SegmentationClass", "b.png"), zeros)
    _palette_png(os.path.join(base, "SegmentationObject", "b.png"), zeros)
    return cls, inst


@pytest.fixture
def voc_dir(tmp_path):
    base = str(tmp_path / "VOC2012")
    write_voc(base)
    return base


def test_bbox_dataset_reads_boxes_labels_and_images(voc_dir):
    d = VOCBboxDataset(voc_dir, split="train")
    assert len(d) == 2
    assert d.keys == ("img", "bbox", "label")
    img, bbox, label = d[0]
    assert img.shape == (3, H, W) and img.dtype == np.float32
    np.testing.assert_allclose(img[:, 3, 4], COLORS["a"], atol=4)
    # Difficult objects are skipped by default; 1-based -> 0-based.
    np.testing.assert_array_equal(bbox, [[0, 1, 4, 6]])
    assert bbox.dtype == np.float32
    np.testing.assert_array_equal(label, [voc_bbox_label_names.index("dog")])
    assert label.dtype == np.int32
    _, bbox, label = d[1]
    assert bbox.shape == (0, 4) and bbox.dtype == np.float32
    assert label.shape == (0,) and label.dtype == np.int32


def test_bbox_dataset_difficult_objects(voc_dir):
    d = VOCBboxDataset(voc_dir, use_difficult=True, return_difficult=True)
    assert d.keys == ("img", "bbox", "label", "difficult")
    _, bbox, label, difficult = d[0]
    np.testing.assert_array_equal(bbox, [[0, 1, 4, 6], [1, 0, 5, 2]])
    np.testing.assert_array_equal(label, [11, 14])  # name is stripped, lowered
    np.testing.assert_array_equal(difficult, [False, True])
    assert difficult.dtype == bool


def test_bbox_dataset_slice_reads_no_image(voc_dir):
    d = VOCBboxDataset(voc_dir)
    for name in os.listdir(os.path.join(voc_dir, "JPEGImages")):
        os.remove(os.path.join(voc_dir, "JPEGImages", name))
    labels = list(d.slice[:, "label"])
    assert [lab.tolist() for lab in labels] == [[11], []]
    with pytest.raises(FileNotFoundError, match="JPEGImages"):
        d[0]


def test_bbox_dataset_custom_labels_and_errors(voc_dir):
    d = VOCBboxDataset(voc_dir, labels=("person", "dog"), use_difficult=True)
    np.testing.assert_array_equal(d[0][2], [1, 0])
    with pytest.raises(TypeError, match="labels must be a tuple"):
        VOCBboxDataset(voc_dir, labels=["dog"])
    with pytest.raises(ValueError, match="'dog'.*not one of the labels"):
        VOCBboxDataset(voc_dir, labels=("cat",))[0]
    with pytest.raises(FileNotFoundError, match=r"val\.txt"):
        VOCBboxDataset(voc_dir, split="val")
    os.remove(os.path.join(voc_dir, "Annotations", "b.xml"))
    with pytest.raises(FileNotFoundError, match=r"b\.xml"):
        VOCBboxDataset(voc_dir)[1]


def test_semantic_segmentation_dataset(voc_dir):
    d = VOCSemanticSegmentationDataset(voc_dir)
    assert d.keys == ("img", "label")
    img, label = d[0]
    assert img.shape == (3, H, W)
    assert label.shape == (H, W) and label.dtype == np.int32
    expected = np.zeros((H, W), np.int32)
    expected[0:3, 0:4] = 12
    expected[3:6, 4:8] = 15
    expected[2, :] = -1
    np.testing.assert_array_equal(label, expected)
    with pytest.raises(ValueError, match="split must be"):
        VOCSemanticSegmentationDataset(voc_dir, split="test")


def test_instance_segmentation_dataset(voc_dir):
    d = VOCInstanceSegmentationDataset(voc_dir)
    assert d.keys == ("img", "mask", "label")
    _, mask, label = d[0]
    assert mask.shape == (2, H, W) and mask.dtype == bool
    np.testing.assert_array_equal(label, [11, 14])
    assert label.dtype == np.int32
    assert mask[0].sum() == 8 and mask[0][0:2, 0:4].all()  # row 2 is border
    assert mask[1].sum() == 12 and mask[1][3:6, 4:8].all()
    _, mask, label = d[1]
    assert mask.shape == (0, H, W) and label.shape == (0,)
    os.remove(os.path.join(voc_dir, "SegmentationObject", "a.png"))
    with pytest.raises(FileNotFoundError, match="SegmentationObject"):
        list(d.slice[:, "mask"])


def test_image_wise_to_instance_wise_rejects_classless_instances():
    label_img = np.zeros((2, 2), np.int32)
    inst_img = np.array([[1, -1], [-1, -1]], np.int32)
    with pytest.raises(ValueError, match="no foreground class"):
        voc_utils.image_wise_to_instance_wise(label_img, inst_img)


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    old = kusari.dataset.get_dataset_root()
    kusari.dataset.set_dataset_root(tmp_path / "root")
    monkeypatch.setattr(kusari.dataset.download, "RETRY_BACKOFF", 0.0)
    yield tmp_path / "root"
    kusari.dataset.set_dataset_root(old)


def test_auto_downloads_and_extracts_the_archive(tmp_path, dataset_root, monkeypatch):
    src = tmp_path / "src"
    write_voc(str(src / "VOCdevkit" / "VOC2012"))
    archive = tmp_path / "VOCtrainval.tar"
    with tarfile.open(archive, "w") as t:
        t.add(src / "VOCdevkit", arcname="VOCdevkit")
    md5 = hashlib.md5(archive.read_bytes()).hexdigest()
    monkeypatch.setitem(voc_utils.urls, "2012", (archive.as_uri(), md5))
    d = VOCBboxDataset(split="train", year="2012")
    expected = dataset_root / "pfnet" / "chainercv" / "voc" / "VOCdevkit" / "VOC2012"
    assert d.data_dir == str(expected)
    assert len(d) == 2
    archive.unlink()  # the second time, the cache is used without fetching
    assert len(VOCSemanticSegmentationDataset()) == 2


def test_auto_offline_error_says_what_to_do(tmp_path, dataset_root, monkeypatch):
    url = (tmp_path / "nowhere" / "VOC.tar").as_uri()
    monkeypatch.setitem(voc_utils.urls, "2007", (url, None))
    with pytest.raises(DownloadError, match="VOCBboxDataset.*data_dir="):
        VOCBboxDataset(year="2007")
    with pytest.raises(ValueError, match="year must be"):
        VOCBboxDataset(year="2010")
