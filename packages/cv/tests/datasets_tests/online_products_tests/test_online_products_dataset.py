import numpy as np
import pytest
from PIL import Image

from kusari_cv.datasets import OnlineProductsDataset, online_products_super_label_names


@pytest.fixture
def sop_dir(tmp_path):
    (tmp_path / "bicycle_final").mkdir()
    for name, value in (("111_0.JPG", 10), ("111_1.JPG", 20), ("222_0.JPG", 30)):
        Image.fromarray(np.full((3, 4, 3), value, np.uint8)).save(
            tmp_path / "bicycle_final" / name, format="JPEG", quality=100
        )
    (tmp_path / "Ebay_train.txt").write_text(
        "image_id class_id super_class_id path\n"
        "1 1 1 bicycle_final/111_0.JPG\n"
        "2 1 1 bicycle_final/111_1.JPG\n"
        "3 5 12 bicycle_final/222_0.JPG\n"
    )
    return str(tmp_path)


def test_reads_labels_and_super_labels(sop_dir):
    d = OnlineProductsDataset(sop_dir, split="train")
    assert len(d) == 3 and d.keys == ("img", "label", "super_label")
    img, label, super_label = d[2]
    assert img.shape == (3, 3, 4)
    np.testing.assert_allclose(img, 30, atol=2)
    assert label == 4 and label.dtype == np.int32
    assert super_label == 11 and super_label.dtype == np.int32
    assert online_products_super_label_names[super_label] == "toaster"
    assert [int(x) for x in d.slice[:, "label"]] == [0, 0, 4]


def test_errors(sop_dir):
    with pytest.raises(FileNotFoundError, match=r"Ebay_test\.txt"):
        OnlineProductsDataset(sop_dir, split="test")
    with pytest.raises(ValueError, match="split must be"):
        OnlineProductsDataset(sop_dir, split="val")
