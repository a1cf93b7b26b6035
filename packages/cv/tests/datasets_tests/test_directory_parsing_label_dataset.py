import os

import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets import (
    DirectoryParsingLabelDataset,
    directory_parsing_label_names,
)


@pytest.fixture
def root(tmp_path):
    layout = {
        "10": ["b.png", "a.png", "notes.txt"],
        "2": ["x.jpg", "deeper/y.png"],
    }
    for label, files in layout.items():
        for i, name in enumerate(files):
            path = tmp_path / label / name
            os.makedirs(path.parent, exist_ok=True)
            if name.endswith(".txt"):
                path.write_text("not an image")
            else:
                Image.fromarray(np.full((2, 3, 3), 10 * i + int(label), np.uint8)).save(
                    path, quality=100
                )
    (tmp_path / "stray.png").write_bytes(b"")  # files at the root are no class
    return str(tmp_path)


def test_label_names(root):
    assert directory_parsing_label_names(root) == ["10", "2"]
    assert directory_parsing_label_names(root, numerical_sort=True) == ["2", "10"]


def test_dataset_walks_each_class_folder(root):
    d = DirectoryParsingLabelDataset(root)
    names = [os.path.relpath(p, root) for p in d.img_paths]
    assert names == ["10/a.png", "10/b.png", "2/x.jpg", "2/deeper/y.png"]
    np.testing.assert_array_equal(d.labels, [0, 0, 1, 1])
    assert d.keys == ("img", "label")
    img, label = d[0]
    assert img.shape == (3, 2, 3) and label == 0 and label.dtype == np.int32
    np.testing.assert_array_equal(img, 20)  # "a.png" was the second file


def test_options(root):
    d = DirectoryParsingLabelDataset(root, color=False, numerical_sort=True)
    assert d.labels.tolist() == [0, 0, 1, 1]
    assert os.path.relpath(d.img_paths[0], root) == "2/x.jpg"
    assert d[0][0].shape == (1, 2, 3)
    only_png = DirectoryParsingLabelDataset(
        root, check_img_file=lambda p: p.endswith(".png")
    )
    assert len(only_png) == 3
    with pytest.raises(FileNotFoundError, match="not a directory"):
        DirectoryParsingLabelDataset(os.path.join(root, "missing"))
