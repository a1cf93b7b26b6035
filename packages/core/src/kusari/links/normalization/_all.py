"""Public names of kusari.links.normalization (re-exported by kusari.links)."""

from kusari.links.normalization.batch_normalization import BatchNormalization
from kusari.links.normalization.batch_renormalization import BatchRenormalization
from kusari.links.normalization.decorrelated_batch_normalization import (
    DecorrelatedBatchNormalization,
)
from kusari.links.normalization.group_normalization import GroupNormalization
from kusari.links.normalization.layer_normalization import LayerNormalization

__all__ = [
    "BatchNormalization",
    "BatchRenormalization",
    "DecorrelatedBatchNormalization",
    "GroupNormalization",
    "LayerNormalization",
]
