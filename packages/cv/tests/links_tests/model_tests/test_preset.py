"""apply_preset: the thresholds use_preset sets (links.model._preset)."""

import pytest

from kusari_cv.links.model._preset import apply_preset

PRESETS = {
    "visualize": {"nms_thresh": 0.3, "score_thresh": 0.7},
    "evaluate": {"nms_thresh": 0.45, "score_thresh": 0.05},
}


class Detector:
    pass


def test_sets_every_attribute_of_the_preset():
    link = Detector()
    apply_preset(link, PRESETS, "visualize")
    assert (link.nms_thresh, link.score_thresh) == (0.3, 0.7)
    apply_preset(link, PRESETS, "evaluate")
    assert (link.nms_thresh, link.score_thresh) == (0.45, 0.05)


def test_unknown_preset_names_the_class_and_the_known_ones():
    with pytest.raises(
        ValueError,
        match=r"Detector\.use_preset: expected one of \['evaluate', 'visualize'\], "
        "got 'fast'",
    ):
        apply_preset(Detector(), PRESETS, "fast")
