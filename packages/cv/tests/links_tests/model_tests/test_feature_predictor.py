import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari_cv.links import FeaturePredictor


class SpatialMean(kusari.Link):
    """Returns the per-channel mean (B, C) and, optionally, the input itself."""

    def __init__(self, both=False):
        super().__init__()
        self.both = both
        self.mean = np.array([1.0, 2.0, 3.0], np.float32)[:, None, None]
        self.seen = []

    def forward(self, x):
        self.seen.append((x.shape, kusari.config.train))
        m = F.average(x, axis=(2, 3))
        return (m, x * 1) if self.both else m


def image(shape, seed=0):
    return np.random.default_rng(seed).uniform(0, 255, shape).astype(np.float32)


def test_center_crop_subtracts_mean_in_test_mode():
    ext = SpatialMean()
    model = FeaturePredictor(ext, crop_size=4)
    imgs = [image((3, 8, 10)), image((3, 6, 6), 1)]
    y = model.predict(imgs)
    expect = [
        (imgs[0][:, 2:6, 3:7] - ext.mean).mean(axis=(1, 2)),
        (imgs[1][:, 1:5, 1:5] - ext.mean).mean(axis=(1, 2)),
    ]
    assert isinstance(y, np.ndarray) and y.shape == (2, 3)
    np.testing.assert_allclose(y, expect, rtol=1e-5)
    assert ext.seen == [((2, 3, 4, 4), False)]


def test_ten_crop_averages_the_crops():
    ext = SpatialMean()
    mean = np.zeros((3, 1, 1), np.float32)
    model = FeaturePredictor(ext, crop_size=(3, 4), crop="10", mean=mean)
    img = image((3, 7, 9))
    y = model.predict([img])
    corners = [
        img[:, :3, :4],
        img[:, :3, 5:],
        img[:, 4:, :4],
        img[:, 4:, 5:],
        img[:, 2:5, 2:6],
    ]
    # Mirrored crops have the same spatial mean, so the average is that of
    # the five crops.
    expect = np.mean([c.mean(axis=(1, 2)) for c in corners], axis=0)
    np.testing.assert_allclose(y[0], expect, rtol=1e-5)
    assert ext.seen[0][0] == (10, 3, 3, 4)


def test_scale_size_resizes_before_cropping():
    ext = SpatialMean()
    img = np.ones((3, 10, 20), np.float32) * 5
    model = FeaturePredictor(ext, crop_size=4, scale_size=8, mean=0 * ext.mean)
    np.testing.assert_allclose(model.predict([img]), [[5, 5, 5]], rtol=1e-5)
    model = FeaturePredictor(ext, crop_size=4, scale_size=(6, 5), mean=0 * ext.mean)
    model.predict([img])
    assert ext.seen[-1][0] == (1, 3, 4, 4)


def test_tuple_outputs_and_four_dimensional_average_warns():
    ext = SpatialMean(both=True)
    model = FeaturePredictor(ext, crop_size=2, crop="10")
    img = image((3, 4, 4))
    with pytest.warns(UserWarning, match="4-dimensional"):
        pooled, maps = model.predict([img, img])
    assert pooled.shape == (2, 3) and maps.shape == (2, 3, 2, 2)
    np.testing.assert_allclose(pooled[0], pooled[1])


def test_rejects_bad_crop_and_missing_mean():
    with pytest.raises(ValueError, match="crop must be 'center' or '10'"):
        FeaturePredictor(SpatialMean(), 4, crop="5")
    link = kusari.Link()
    with pytest.raises(ValueError, match="no mean attribute"):
        FeaturePredictor(link, 4)
