import json
import os
import zipfile

import numpy as np
import pytest
from PIL import Image

import kusari
from kusari_cv.datasets import (
    COCOBboxDataset,
    COCOInstanceSegmentationDataset,
    COCOKeypointDataset,
    COCOSemanticSegmentationDataset,
    coco_keypoint_names,
)
from kusari_cv.datasets.coco import coco_utils
from kusari_cv.datasets.coco.coco_mask import mask_to_rle

H, W = 10, 12


def _image(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.full((H, W, 3), value, np.uint8)).save(path, quality=100)


def _rect(y0, x0, y1, x1):
    mask = np.zeros((H, W), bool)
    mask[y0:y1, x0:x1] = True
    return mask


def write_instances(root, mode="instances", split="train", year="2017"):
    """Two images: 7 has a polygon, an RLE crowd, a compressed RLE and a
    zero-width box; 3 has no objects."""
    _image(os.path.join(root, "images", f"{split}{year}", "a.jpg"), 50)
    _image(os.path.join(root, "images", f"{split}{year}", "b.jpg"), 150)
    annotations = [
        {
            "id": 1, "image_id": 7, "category_id": 18, "iscrowd": 0, "area": 12.0,
            "bbox": [1, 2, 4, 3],  # x, y, w, h
            "segmentation": [[1, 2, 5, 2, 5, 5, 1, 5]],
        },
        {
            "id": 2, "image_id": 7, "category_id": 1, "iscrowd": 1, "area": 20.0,
            "bbox": [6, 0, 5, 4],
            "segmentation": mask_to_rle(_rect(0, 6, 4, 11)),
        },
        {
            "id": 3, "image_id": 7, "category_id": 3, "iscrowd": 0, "area": 6.0,
            "bbox": [0, 7, 3, 2],
            "segmentation": mask_to_rle(_rect(7, 0, 9, 3), compress=True),
        },
        {
            "id": 4, "image_id": 7, "category_id": 1, "iscrowd": 0, "area": 0.0,
            "bbox": [3, 3, 0, 2], "segmentation": [[3, 3, 3, 3, 3, 5]],
        },
    ]  # fmt: skip
    if mode == "person_keypoints":
        points = np.zeros((len(coco_keypoint_names), 3))
        points[0] = (4, 3, 2)  # nose: x, y, visible
        points[5] = (2, 8, 1)  # left shoulder: labeled, occluded
        for anno in annotations:
            anno["keypoints"] = points.ravel().tolist()
    data = {
        "images": [
            {"id": 7, "file_name": "a.jpg", "height": H, "width": W},
            {"id": 3, "file_name": "b.jpg", "height": H, "width": W},
        ],
        "categories": [{"id": i, "name": str(i)} for i in (1, 3, 18)],
        "annotations": annotations,
    }
    os.makedirs(os.path.join(root, "annotations"), exist_ok=True)
    with open(
        os.path.join(root, "annotations", f"{mode}_{split}{year}.json"), "w"
    ) as f:
        json.dump(data, f)


@pytest.fixture
def coco_dir(tmp_path):
    write_instances(str(tmp_path))
    return str(tmp_path)


def test_bbox_dataset(coco_dir):
    d = COCOBboxDataset(coco_dir, split="train", year="2017")
    assert len(d) == 2
    assert d.keys == ("img", "bbox", "label")
    img, bbox, label = d[1]  # ids are sorted: image 7 comes second
    assert img.shape == (3, H, W) and img.dtype == np.float32
    np.testing.assert_allclose(img, 50, atol=2)
    # Crowd and empty boxes are dropped; (x, y, w, h) -> (y0, x0, y1, x1).
    np.testing.assert_array_equal(bbox, [[2, 1, 5, 5], [7, 0, 9, 3]])
    assert bbox.dtype == np.float32
    np.testing.assert_array_equal(label, [2, 1])  # category ids 18 and 3
    assert label.dtype == np.int32
    _, bbox, label = d[0]
    assert bbox.shape == (0, 4) and label.shape == (0,)


def test_bbox_dataset_crowded_and_area(coco_dir):
    d = COCOBboxDataset(
        coco_dir, use_crowded=True, return_area=True, return_crowded=True
    )
    assert d.keys == ("img", "bbox", "label", "area", "crowded")
    _, bbox, label, area, crowded = d[1]
    np.testing.assert_array_equal(label, [2, 0, 1])
    np.testing.assert_array_equal(area, [12, 20, 6])
    assert area.dtype == np.float32
    np.testing.assert_array_equal(crowded, [False, True, False])
    assert crowded.dtype == bool


def test_instance_segmentation_dataset_decodes_polygons_and_rles(coco_dir):
    d = COCOInstanceSegmentationDataset(
        coco_dir, use_crowded=True, return_crowded=True, return_area=True,
        return_bbox=True,
    )  # fmt: skip
    assert d.keys == ("img", "mask", "label", "area", "crowded", "bbox")
    _, mask, label, area, crowded, bbox = d[1]
    assert mask.shape == (3, H, W) and mask.dtype == bool
    np.testing.assert_array_equal(mask[0], _rect(2, 1, 5, 5))  # polygon
    np.testing.assert_array_equal(mask[1], _rect(0, 6, 4, 11))  # list RLE
    np.testing.assert_array_equal(mask[2], _rect(7, 0, 9, 3))  # string RLE
    np.testing.assert_array_equal(label, [2, 0, 1])
    assert len(area) == len(crowded) == len(bbox) == 3
    _, mask, label = COCOInstanceSegmentationDataset(coco_dir)[0]
    assert mask.shape == (0, H, W) and label.shape == (0,)


def test_slice_reads_annotations_only(coco_dir):
    d = COCOInstanceSegmentationDataset(coco_dir)
    os.remove(os.path.join(coco_dir, "images", "train2017", "a.jpg"))
    labels = [lab.tolist() for lab in d.slice[:, "label"]]
    assert labels == [[], [2, 1]]
    with pytest.raises(FileNotFoundError, match=r"a\.jpg"):
        d[1]


def test_errors_name_the_missing_file_and_bad_split(coco_dir):
    with pytest.raises(FileNotFoundError, match=r"instances_val2017\.json"):
        COCOBboxDataset(coco_dir, split="val")
    with pytest.raises(ValueError, match="COCO 2017 has the splits"):
        COCOBboxDataset(coco_dir, split="minival")


def test_keypoint_dataset(tmp_path):
    write_instances(str(tmp_path), mode="person_keypoints", split="val")
    d = COCOKeypointDataset(str(tmp_path), split="val", return_area=True)
    assert d.keys == ("img", "point", "visible", "bbox", "label", "area")
    _, point, visible, bbox, label, area = d[1]
    assert point.shape == (2, 17, 2) and point.dtype == np.float32
    np.testing.assert_array_equal(point[0, 0], [3, 4])  # (y, x)
    np.testing.assert_array_equal(point[0, 5], [8, 2])
    assert visible.shape == (2, 17) and visible.dtype == bool
    assert visible[0].tolist() == [i in (0, 5) for i in range(17)]
    assert len(bbox) == len(label) == len(area) == 2
    _, point, visible, *_ = d[0]
    assert point.shape == (0, 17, 2) and visible.shape == (0, 17)


def test_semantic_segmentation_from_panoptic_pngs(tmp_path):
    root = str(tmp_path)
    _image(os.path.join(root, "images", "val2017", "x.jpg"), 90)
    ids = np.zeros((H, W), np.int64)
    ids[0:5] = 1000  # a segment id needing all three channels below
    ids[5:, 0:6] = 70000
    rgb = np.stack([ids % 256, ids // 256 % 256, ids // 65536], axis=2)
    png_dir = os.path.join(root, "annotations", "panoptic_val2017")
    os.makedirs(png_dir)
    Image.fromarray(rgb.astype(np.uint8)).save(os.path.join(png_dir, "x.png"))
    with open(os.path.join(root, "annotations", "panoptic_val2017.json"), "w") as f:
        json.dump(
            {
                "annotations": [
                    {
                        "file_name": "x.png",
                        "segments_info": [
                            {"id": 1000, "category_id": 5},
                            {"id": 70000, "category_id": 2},
                        ],
                    }
                ],
                "categories": [{"id": 2}, {"id": 5}],
            },
            f,
        )
    d = COCOSemanticSegmentationDataset(root, split="val")
    img, label = d[0]
    assert img.shape == (3, H, W)
    expected = np.full((H, W), -1, np.int32)
    expected[0:5] = 1
    expected[5:, 0:6] = 0
    np.testing.assert_array_equal(label, expected)
    assert label.dtype == np.int32


def test_auto_downloads_images_and_annotations(tmp_path_factory, monkeypatch):
    src = str(tmp_path_factory.mktemp("src"))
    write_instances(src)
    served = tmp_path_factory.mktemp("served")
    with zipfile.ZipFile(served / "train2017.zip", "w") as z:
        for name in ("a.jpg", "b.jpg"):
            z.write(os.path.join(src, "images", "train2017", name), f"train2017/{name}")
    with zipfile.ZipFile(served / "annotations_trainval2017.zip", "w") as z:
        z.write(
            os.path.join(src, "annotations", "instances_train2017.json"),
            "annotations/instances_train2017.json",
        )
    monkeypatch.setitem(
        coco_utils.img_urls, "2017", {"train": (served / "train2017.zip").as_uri()}
    )
    monkeypatch.setitem(
        coco_utils.instances_anno_urls,
        "2017",
        {"train": (served / "annotations_trainval2017.zip").as_uri()},
    )
    old = kusari.dataset.get_dataset_root()
    root = tmp_path_factory.mktemp("root")
    kusari.dataset.set_dataset_root(root)
    try:
        d = COCOBboxDataset(split="train", year="2017")
        assert d.data_dir == str(root / "pfnet" / "chainercv" / "coco")
        np.testing.assert_array_equal(d[1][2], [2, 1])
    finally:
        kusari.dataset.set_dataset_root(old)
