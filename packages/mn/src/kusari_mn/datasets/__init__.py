"""Splitting datasets over ranks."""

from kusari_mn.datasets.empty_dataset import create_empty_dataset
from kusari_mn.datasets.scatter_dataset import (
    DataSizeError,
    scatter_dataset,
    scatter_index,
)
from kusari_mn.datasets.shuffle_datablock import shuffle_data_blocks

__all__ = [
    "DataSizeError",
    "create_empty_dataset",
    "scatter_dataset",
    "scatter_index",
    "shuffle_data_blocks",
]
