import io

import numpy as np
import pytest
from PIL import Image

from kusari_cv.utils import read_image, read_label, tile_images, write_image

BACKENDS = ["PIL", "cv2"]


def _rgb(h=6, w=9):
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (3, h, w)).astype(np.float32)


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
@pytest.mark.parametrize("suffix", [".png", ".bmp"])
def test_write_then_read_rgb(tmp_path, backend_config, suffix):
    img = _rgb()
    path = tmp_path / f"x{suffix}"
    write_image(img, path)
    out = read_image(str(path))
    assert out.shape == (3, 6, 9) and out.dtype == np.float32
    np.testing.assert_array_equal(out, img)
    # No temporary file is left next to it.
    assert [p.name for p in tmp_path.iterdir()] == [f"x{suffix}"]


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
def test_gray_and_dtype(tmp_path, backend_config):
    img = _rgb()[:1]
    write_image(img, tmp_path / "g.png")
    out = read_image(tmp_path / "g.png", dtype=np.uint8, color=False)
    assert out.shape == (1, 6, 9) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, img)
    # A gray file read as color repeats the channel.
    out = read_image(tmp_path / "g.png")
    np.testing.assert_array_equal(out, np.repeat(img, 3, axis=0))


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
def test_rgba(tmp_path, backend_config):
    rgba = np.zeros((2, 2, 4), np.uint8)
    rgba[..., 0] = 200
    rgba[..., 3] = [[255, 0], [51, 102]]
    Image.fromarray(rgba, "RGBA").save(tmp_path / "a.png")
    path = str(tmp_path / "a.png")
    with pytest.raises(ValueError, match="read_image: the image has an alpha channel"):
        read_image(path)
    ignore = read_image(path, alpha="ignore")
    np.testing.assert_array_equal(ignore[0], np.full((2, 2), 200))
    white = read_image(path, alpha="blend_with_white")
    np.testing.assert_allclose(white[:, 0, 1], [255, 255, 255])
    np.testing.assert_allclose(white[:, 1, 0], [200 * 0.2 + 255 * 0.8, 204, 204])
    black = read_image(path, alpha="blend_with_black")
    np.testing.assert_allclose(black[:, 1, 1], [80, 0, 0])


@pytest.mark.parametrize("backend_config", BACKENDS, indirect=True)
def test_file_object(backend_config):
    buf = io.BytesIO()
    write_image(_rgb(), buf, format="PNG")
    buf.seek(0)
    np.testing.assert_array_equal(read_image(buf), _rgb())


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="read_image: alpha must be"):
        read_image(tmp_path / "x.png", alpha="transparent")
    with pytest.raises(
        ValueError, match=r"write_image: img must have shape \(1, H, W\) or"
    ):
        write_image(np.zeros((4, 3, 3)), tmp_path / "x.png")
    with pytest.raises(ValueError, match="cannot tell the format"):
        write_image(np.zeros((3, 3, 3)), tmp_path / "x.unknown")
    import kusari

    with kusari.using_config("cv_read_image_backend", "magick"):
        with pytest.raises(
            ValueError, match="cv_read_image_backend must be None, 'cv2' or 'PIL'"
        ):
            read_image(tmp_path / "x.png")


def test_read_label_palette(tmp_path):
    label = np.array([[0, 1, 2], [255, 3, 0]], np.uint8)
    img = Image.fromarray(label, "P")
    img.putpalette([0, 0, 0, 128, 0, 0, 0, 128, 0, 128, 128, 0] + [0] * (252 * 3))
    img.save(tmp_path / "l.png")
    out = read_label(tmp_path / "l.png")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, label)
    Image.fromarray(np.zeros((2, 2, 3), np.uint8)).save(tmp_path / "c.png")
    with pytest.raises(ValueError, match="read_label: expected a single-channel"):
        read_label(tmp_path / "c.png")


def test_tile_images():
    imgs = np.arange(3 * 1 * 2 * 2, dtype=np.float32).reshape(3, 1, 2, 2)
    tile = tile_images(imgs, n_col=2, pad=2, fill=-1)
    assert tile.shape == (1, 8, 8)
    np.testing.assert_array_equal(tile[0, 1:3, 1:3], imgs[0, 0])
    np.testing.assert_array_equal(tile[0, 1:3, 5:7], imgs[1, 0])
    np.testing.assert_array_equal(tile[0, 5:7, 1:3], imgs[2, 0])
    assert (tile[0, 5:7, 5:7] == -1).all() and tile[0, 0, 0] == -1
    rgb = tile_images(np.zeros((1, 3, 2, 2)), 4, pad=0, fill=(1, 2, 3))
    assert rgb.shape == (3, 2, 2)
    with pytest.raises(
        ValueError, match=r"tile_images: imgs must have shape \(B, C, H, W\)"
    ):
        tile_images(np.zeros((3, 2, 2)), 2)
