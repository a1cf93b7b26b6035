import numpy as np
import pytest

from kusari_cv.datasets import MixUpSoftLabelDataset, SiameseDataset


def _label_dataset(labels):
    return [
        (np.full((2, 2), i, np.float32), np.int32(lab)) for i, lab in enumerate(labels)
    ]


def test_siamese_positive_and_negative_pairs():
    np.random.seed(0)
    base = _label_dataset([0, 0, 1, 1, 2])
    positive = SiameseDataset(base, base, pos_ratio=1.0, length=7)
    assert len(positive) == 7
    for i in range(20):
        img_0, label_0, img_1, label_1 = positive[i % 7]
        assert label_0 == label_1
        assert img_0[0, 0] in (0, 1, 2, 3, 4)
    negative = SiameseDataset(base, base, pos_ratio=0.0)
    assert all(ex[1] != ex[3] for ex in (negative[0] for _ in range(20)))
    mixed = SiameseDataset(base, base, pos_ratio=0.5)
    same = np.mean([ex[1] == ex[3] for ex in (mixed[0] for _ in range(400))])
    assert 0.4 < same < 0.6


def test_siamese_without_pos_ratio_and_given_labels():
    np.random.seed(1)
    a, b = _label_dataset([0, 1]), _label_dataset([5, 6, 7])
    d = SiameseDataset(a, b)
    assert len(d) == 2 and len(d[0]) == 4
    labels = np.array([0, 1], np.int32)
    d = SiameseDataset(a, _label_dataset([1, 0]), pos_ratio=1.0, labels_0=labels)
    assert all(ex[1] == ex[3] for ex in (d[0] for _ in range(10)))


def test_siamese_errors():
    a, b = _label_dataset([0, 0]), _label_dataset([1, 1])
    with pytest.raises(ValueError, match="no positive pair"):
        SiameseDataset(a, b, pos_ratio=0.5)
    with pytest.raises(ValueError, match="no negative pair"):
        SiameseDataset(a, a, pos_ratio=0.5)
    with pytest.raises(ValueError, match="labels_0 must be a 1-D int32"):
        SiameseDataset(a, b, pos_ratio=0.5, labels_0=np.array([0, 1]))


def test_mixup_mixes_images_and_labels_with_the_same_ratio():
    np.random.seed(2)
    base = SiameseDataset(_label_dataset([0, 1, 2]), _label_dataset([0, 1, 2]))
    d = MixUpSoftLabelDataset(base, n_class=3)
    assert len(d) == 3
    for _ in range(10):
        img, label = d[0]
        assert img.dtype == np.float32 and label.dtype == np.float32
        assert label.shape == (3,)
        np.testing.assert_allclose(label.sum(), 1, rtol=1e-6)
        # Image i is filled with i, so the mixed value is the label's mean.
        np.testing.assert_allclose(img, (label * np.arange(3)).sum(), rtol=1e-5)
    with pytest.raises(ValueError, match="img_0, label_0, img_1, label_1"):
        MixUpSoftLabelDataset(_label_dataset([0]), n_class=2)[0]
