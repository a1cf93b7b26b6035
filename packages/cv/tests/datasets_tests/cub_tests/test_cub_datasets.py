import os

import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets import CUBKeypointDataset, CUBLabelDataset, cub_label_names

SIZES = {"001.A/a_1.jpg": (6, 8), "002.B/b_1.jpg": (4, 5)}  # (H, W)


@pytest.fixture
def cub_dir(tmp_path):
    base = tmp_path / "CUB_200_2011"
    seg = tmp_path / "segmentations"
    for path, (h, w) in SIZES.items():
        os.makedirs(base / "images" / os.path.dirname(path), exist_ok=True)
        Image.fromarray(np.full((h, w, 3), 60, np.uint8)).save(base / "images" / path)
        os.makedirs(seg / os.path.dirname(path), exist_ok=True)
        prob = np.zeros((h, w), np.uint8)
        prob[0, 0] = 255
        Image.fromarray(prob, "L").save(seg / (os.path.splitext(path)[0] + ".png"))
    # Ids need not follow file order: the id column is what links the files.
    (base / "images.txt").write_text("10 001.A/a_1.jpg\n20 002.B/b_1.jpg\n")
    (base / "bounding_boxes.txt").write_text("20 1.0 0.0 3.0 2.0\n10 2.0 1.0 4.0 3.0\n")
    (base / "image_class_labels.txt").write_text("10 1\n20 2\n")
    parts = []
    for image_id in ("10", "20"):
        for part in range(1, 16):
            parts.append(f"{image_id} {part} {part}.0 {part / 2} {part % 2}")
    (base / "parts").mkdir()
    (base / "parts" / "part_locs.txt").write_text("\n".join(parts) + "\n")
    return str(base), str(seg)


def test_label_dataset(cub_dir):
    data_dir, seg_dir = cub_dir
    d = CUBLabelDataset(
        data_dir, return_bbox=True, prob_map_dir=seg_dir, return_prob_map=True
    )
    assert d.keys == ("img", "label", "bbox", "prob_map")
    img, label, bbox, prob_map = d[1]
    assert img.shape == (3, 4, 5)
    assert label == 1 and label.dtype == np.int32
    np.testing.assert_array_equal(bbox, [[0, 1, 2, 4]])  # (y0, x0, y1, x1)
    assert bbox.dtype == np.float32
    assert prob_map.shape == (4, 5) and prob_map.dtype == np.float32
    assert prob_map[0, 0] == 1 and prob_map.sum() == 1
    assert CUBLabelDataset(data_dir).keys == ("img", "label")
    assert len(cub_label_names) == 200


def test_keypoint_dataset_hides_points_outside_the_image(cub_dir):
    data_dir, _ = cub_dir
    d = CUBKeypointDataset(data_dir, return_bbox=True)
    assert d.keys == ("img", "point", "visible", "bbox")
    _, point, visible, bbox = d[1]  # a 4 x 5 image
    assert point.shape == (1, 15, 2) and point.dtype == np.float32
    np.testing.assert_array_equal(point[0, 2], [1.5, 3])  # part 3: (y, x)
    assert visible.shape == (1, 15) and visible.dtype == bool
    # Odd parts are marked visible; part 7 (x = 7) lies outside a width of 5.
    assert visible[0].tolist() == [p % 2 == 1 and p <= 5 for p in range(1, 16)]
    labels_only = list(d.slice[:, "point"])
    assert len(labels_only) == 2


def test_missing_files_are_named(cub_dir):
    data_dir, _ = cub_dir
    os.remove(os.path.join(data_dir, "bounding_boxes.txt"))
    with pytest.raises(FileNotFoundError, match=r"bounding_boxes\.txt"):
        CUBLabelDataset(data_dir)


def test_inconsistent_ids_are_reported(cub_dir):
    data_dir, _ = cub_dir
    with open(os.path.join(data_dir, "image_class_labels.txt"), "w") as f:
        f.write("10 1\n")
    with pytest.raises(ValueError, match="image id 20"):
        CUBLabelDataset(data_dir)
