"""FCIS post-processing."""

from kusari_cv.links.model.fcis.utils.mask_voting import mask_voting
