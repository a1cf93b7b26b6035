"""Public names of kusari.links.normalization (re-exported by kusari.links)."""

from kusari.links.normalization.batch_normalization import BatchNormalization

__all__ = ["BatchNormalization"]
