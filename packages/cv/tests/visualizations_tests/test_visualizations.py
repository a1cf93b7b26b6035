import numpy as np
import pytest

plt = pytest.importorskip("matplotlib.pyplot", reason="matplotlib is not installed")

from kusari_cv.visualizations import (  # noqa: E402
    vis_bbox,
    vis_image,
    vis_instance_segmentation,
    vis_point,
    vis_semantic_segmentation,
    voc_colormap,
)


def _canvas_axis(h=100, w=100):
    """An axis covering a whole figure of h x w pixels (one pixel per pixel)."""
    fig = plt.figure(figsize=(w / 100, h / 100), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.axis("off")
    return fig, ax


def _pixels(fig):
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(int)


def test_vis_image_draws_the_pixels():
    img = np.zeros((3, 100, 100), np.float32)
    img[1] = 200  # green
    img[:, 40:60, 40:60] = np.array([255, 0, 255]).reshape(3, 1, 1)
    fig, ax = _canvas_axis()
    assert vis_image(img, ax=ax) is ax
    np.testing.assert_array_equal(ax.images[0].get_array(), img.transpose(1, 2, 0))
    px = _pixels(fig)
    np.testing.assert_array_equal(px[10, 10], [0, 200, 0])
    np.testing.assert_array_equal(px[50, 50], [255, 0, 255])


def test_vis_image_rejects_gray():
    with pytest.raises(ValueError, match=r"vis_image: img must have shape \(3, H, W\)"):
        vis_image(np.zeros((1, 4, 4)))


def test_vis_bbox_rectangles_and_captions():
    bbox = np.array([[10, 20, 50, 80], [0, 0, 30, 30]], np.float32)
    label = np.array([1, 0], np.int32)
    score = np.array([0.9, 0.25], np.float32)
    ax = vis_bbox(None, bbox, label, score, label_names=["cat", "dog"])
    # Drawn by increasing score: the 0.25 box first.
    (r0, r1) = ax.patches
    assert r0.get_xy() == (0, 0) and r0.get_width() == 30 and r0.get_height() == 30
    assert r1.get_xy() == (20, 10) and r1.get_width() == 60 and r1.get_height() == 40
    assert [t.get_text() for t in ax.texts] == ["cat: 0.25", "dog: 0.90"]
    np.testing.assert_allclose(r1.get_edgecolor()[:3], (1, 0, 0))


def test_vis_bbox_pixels_on_the_edge():
    img = np.full((3, 100, 100), 255, np.float32)
    fig, ax = _canvas_axis()
    colors = np.array([[0, 0, 255]])
    vis_bbox(
        img,
        np.array([[20, 20, 80, 80]], np.float32),
        instance_colors=colors,
        linewidth=4,
        ax=ax,
    )
    px = _pixels(fig)
    # The top edge is blue, inside and outside stay white.
    np.testing.assert_array_equal(px[20, 50], [0, 0, 255])
    np.testing.assert_array_equal(px[50, 50], [255, 255, 255])
    np.testing.assert_array_equal(px[5, 50], [255, 255, 255])


def test_vis_bbox_errors():
    bbox = np.zeros((2, 4), np.float32)
    with pytest.raises(ValueError, match=r"vis_bbox: label must have one entry"):
        vis_bbox(None, bbox, label=np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="label 5 has no name"):
        vis_bbox(None, bbox, label=np.array([0, 5]), label_names=["a", "b"])
    with pytest.raises(ValueError, match=r"vis_bbox: bbox must have shape \(R, 4\)"):
        vis_bbox(None, np.zeros((2, 3)))


def test_vis_semantic_segmentation_colors_and_legend():
    label = np.zeros((100, 100), np.int32)
    label[:50] = 2
    label[90:] = -1
    fig, ax = _canvas_axis()
    ax, handles = vis_semantic_segmentation(
        None,
        label,
        label_names=["bg", "a", "b"],
        ignore_label_color=(255, 255, 0),
        ax=ax,
    )
    assert [h.get_label() for h in handles] == ["bg", "b"]
    px = _pixels(fig)
    np.testing.assert_array_equal(px[10, 10], voc_colormap([2])[0])
    np.testing.assert_array_equal(px[70, 10], [0, 0, 0])
    np.testing.assert_array_equal(px[95, 10], [255, 255, 0])
    _, handles = vis_semantic_segmentation(
        None, label, label_names=["bg", "a", "b"], all_label_names_in_legend=True
    )
    assert len(handles) == 3


def test_vis_semantic_segmentation_blends_with_alpha():
    img = np.full((3, 100, 100), 255, np.float32)
    fig, ax = _canvas_axis()
    vis_semantic_segmentation(
        img,
        np.ones((100, 100), np.int32),
        alpha=0.5,
        label_colors=[[0, 0, 0], [0, 0, 0]],
        ax=ax,
    )
    # Half black over white.
    np.testing.assert_allclose(_pixels(fig)[50, 50], [128, 128, 128], atol=1)


def test_vis_instance_segmentation():
    mask = np.zeros((2, 100, 100), bool)
    mask[0, 10:40, 10:40] = True
    mask[1, 60:90, 50:90] = True
    fig, ax = _canvas_axis()
    vis_instance_segmentation(
        None,
        mask,
        label=np.array([0, 1]),
        score=np.array([0.5, 0.8]),
        label_names=["x", "y"],
        instance_colors=[[255, 0, 0], [0, 255, 0]],
        alpha=1.0,
        ax=ax,
    )
    assert sorted(t.get_text() for t in ax.texts) == ["x: 0.50", "y: 0.80"]
    assert ax.texts[0].get_position() == (10, 10)
    px = _pixels(fig)
    # Matplotlib's antialiasing may soften the colors slightly.
    np.testing.assert_allclose(px[36, 36], [255, 0, 0], atol=30)
    np.testing.assert_allclose(px[80, 80], [0, 255, 0], atol=30)
    np.testing.assert_array_equal(px[50, 5], [255, 255, 255])


def test_vis_point():
    point = np.array([[[10, 20], [30, 40], [50, 60]]], np.float32)
    visible = np.array([[True, False, True]])
    ax = vis_point(None, point, visible)
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_array_equal(offsets, [[20, 10], [60, 50]])
    with pytest.raises(ValueError, match=r"vis_point: visible must have shape"):
        vis_point(None, point, np.ones((1, 2), bool))


def test_voc_colormap_known_colors():
    np.testing.assert_array_equal(
        voc_colormap([0, 1, 2, 3, 7, 255]),
        [
            [0, 0, 0],
            [128, 0, 0],
            [0, 128, 0],
            [128, 128, 0],
            [128, 128, 128],
            [224, 224, 192],
        ],
    )
