"""ChainerCV 0.13's experimental import paths resolve to kusari-cv's models."""

from __future__ import annotations

import kusari_cv
from kusari_cv.links.model.pspnet import PSPNetResNet50, PSPNetResNet101
from kusari_cv.links.model.yolo import YOLOv2Tiny


def test_experimental_links_are_the_same_classes():
    from kusari_cv.experimental.links import PSPNetResNet50 as P50
    from kusari_cv.experimental.links import PSPNetResNet101 as P101
    from kusari_cv.experimental.links import YOLOv2Tiny as Tiny
    from kusari_cv.experimental.links.model.pspnet import PSPNetResNet50 as Q50

    assert P50 is PSPNetResNet50 and P101 is PSPNetResNet101 and Q50 is P50
    assert Tiny is YOLOv2Tiny
    from kusari_cv.experimental.links.model.fcis import FCISResNet101
    from kusari_cv.links.model.fcis import FCISResNet101 as Real

    assert FCISResNet101 is Real
    # The lazy top-level attribute works as well.
    assert kusari_cv.experimental.links.YOLOv2Tiny is YOLOv2Tiny
