import numpy as np
import pytest
from PIL import Image

from kusari_cv import transforms as T

BACKENDS = ["PIL", "cv2"]


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
@pytest.mark.parametrize("channels", [1, 3, 5])
def test_resize_constant_and_shape(backend_config, channels):
    img = np.stack([np.full((6, 8), 10.0 * (c + 1)) for c in range(channels)]).astype(
        np.float32
    )
    out = T.resize(img, (12, 5))
    assert out.shape == (channels, 12, 5) and out.dtype == np.float32
    np.testing.assert_allclose(
        out, img[:, :1, :1].repeat(12, 1).repeat(5, 2), rtol=1e-5
    )


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
def test_resize_nearest_doubles_pixels(backend_config):
    img = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    out = T.resize(img, (6, 8), interpolation=Image.NEAREST)
    np.testing.assert_array_equal(out, img.repeat(2, axis=1).repeat(2, axis=2))


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
def test_resize_bilinear_keeps_a_ramp(backend_config):
    # Bilinear resampling of a linear ramp gives the ramp at the new pixel
    # centres (away from the border where the edge pixel is repeated).
    x = np.arange(16, dtype=np.float32)
    img = np.broadcast_to(x, (1, 4, 16)).copy()
    out = T.resize(img, (4, 32))
    centres = (np.arange(32) + 0.5) / 2 - 0.5
    np.testing.assert_allclose(out[0, 0, 2:-2], centres[2:-2], atol=1e-4)


def test_resize_backends_agree_on_smooth_images():
    pytest.importorskip("cv2")
    import kusari

    yy, xx = np.mgrid[0:20, 0:30]
    img = np.stack([np.sin(yy / 5.0) * 100 + 100, xx * 4.0, yy * 6.0]).astype(
        np.float32
    )
    outs = []
    for backend in BACKENDS:
        with kusari.using_config("cv_resize_backend", backend):
            outs.append(T.resize(img, (13, 41)))
    np.testing.assert_allclose(outs[0][:, 1:-1, 1:-1], outs[1][:, 1:-1, 1:-1], atol=1.5)


def test_resize_errors():
    img = np.zeros((3, 4, 4), np.float32)
    with pytest.raises(ValueError, match="resize: interpolation must be"):
        T.resize(img, (2, 2), interpolation=99)
    with pytest.raises(ValueError, match=r"resize: size must be \(H, W\)"):
        T.resize(img, 5)
    with pytest.raises(ValueError, match=r"resize: img must have shape \(C, H, W\)"):
        T.resize(np.zeros((4, 4)), (2, 2))
    assert T.resize(np.zeros((0, 4, 4), np.float32), (2, 3)).shape == (0, 2, 3)


def test_scale():
    img = np.zeros((3, 20, 40), np.float32)
    assert T.scale(img, 10).shape == (3, 10, 20)
    assert T.scale(img, 10, fit_short=False).shape == (3, 5, 10)
    assert T.scale(img, 20) is img
    assert T.scale(np.zeros((1, 40, 20), np.float32), 10).shape == (1, 20, 10)


def test_resize_contain():
    img = np.ones((3, 20, 40), np.float32)
    out, param = T.resize_contain(img, (30, 20), fill=-1, return_param=True)
    assert out.shape == (3, 30, 20)
    assert param == {"y_offset": 10, "x_offset": 0, "scaled_size": (10, 20)}
    np.testing.assert_allclose(out[:, 10:20], 1)
    assert (out[:, :10] == -1).all() and (out[:, 20:] == -1).all()
    # A smaller image is centred, not enlarged.
    out, param = T.resize_contain(
        np.ones((1, 4, 6), np.float32), (9, 9), return_param=True
    )
    assert param == {"y_offset": 2, "x_offset": 1, "scaled_size": (4, 6)}
    assert out[0, 2:6, 1:7].all() and out.sum() == 24


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
@pytest.mark.parametrize("angle", [90, 180, -90, 270, 360])
def test_rotate_right_angles_are_exact(backend_config, angle):
    img = np.arange(3 * 4 * 6, dtype=np.float32).reshape(3, 4, 6)
    np.testing.assert_array_equal(
        T.rotate(img, angle), np.rot90(img, angle // 90, axes=(1, 2))
    )


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
def test_rotate_45(backend_config):
    img = np.full((2, 21, 21), 7.0, np.float32)
    img[:, 10, 10] = 50
    out = T.rotate(img, 45, fill=7, interpolation=Image.NEAREST)
    assert abs(out.shape[1] - 21 * np.sqrt(2)) <= 2 and out.shape[1] == out.shape[2]
    c = out.shape[1] // 2
    assert out[0, c - 1 : c + 2, c - 1 : c + 2].max() == 50
    assert (np.delete(out.ravel(), np.argmax(out.ravel())) == 7).mean() > 0.99
    same = T.rotate(img, 45, expand=False, fill=7)
    assert same.shape == img.shape


def test_rotate_direction_is_counter_clockwise():
    img = np.zeros((1, 31, 31), np.float32)
    img[0, 15, 25:30] = 1  # a dash to the right of the centre
    out = T.rotate(img, 30, expand=False, interpolation=Image.NEAREST)
    ys, xs = np.nonzero(out[0])
    # Counter-clockwise in the displayed image: the dash moves up.
    assert ys.mean() < 15 and xs.mean() > 15


def test_rotate_backends_agree():
    pytest.importorskip("cv2")
    import kusari

    yy, xx = np.mgrid[0:23, 0:37]
    img = np.stack([xx * 3.0 + yy, yy * 5.0]).astype(np.float32)
    for angle in (30, -120):
        outs = []
        for backend in BACKENDS:
            with kusari.using_config("cv_rotate_backend", backend):
                outs.append(T.rotate(img, angle, fill=0))
        assert outs[0].shape == outs[1].shape
        # Equal inside; the two may blend the border with the fill differently.
        assert np.percentile(np.abs(outs[0] - outs[1]), 80) < 1e-3
