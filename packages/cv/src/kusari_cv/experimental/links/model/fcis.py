"""``chainercv.experimental.links.model.fcis`` (see kusari_cv.links.model.fcis)."""

from kusari_cv.links.model.fcis import FCIS, FCISResNet101, FCISResNet101Head

__all__ = ["FCIS", "FCISResNet101", "FCISResNet101Head"]
