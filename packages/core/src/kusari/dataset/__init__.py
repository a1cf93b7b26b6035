"""Dataset abstractions: converters, iterators' base class, downloads, tabular.

Example:
    >>> import numpy as np
    >>> from kusari import dataset
    >>> dataset.concat_examples([np.zeros(2), np.ones(2)]).shape
    (2, 2)
"""

from kusari.dataset import convert, download, tabular
from kusari.dataset.convert import (
    ConcatWithAsyncTransfer,
    Converter,
    call_converter,
    concat_examples,
    converter,
    to_device,
)
from kusari.dataset.dataset_mixin import DatasetMixin
from kusari.dataset.download import (
    cache_or_load_file,
    cached_download,
    get_dataset_directory,
    get_dataset_root,
    set_dataset_root,
)
from kusari.dataset.iterator import Iterator
from kusari.dataset.tabular.tabular_dataset import TabularDataset

__all__ = [
    "ConcatWithAsyncTransfer",
    "Converter",
    "DatasetMixin",
    "Iterator",
    "TabularDataset",
    "cache_or_load_file",
    "cached_download",
    "call_converter",
    "concat_examples",
    "converter",
    "get_dataset_directory",
    "get_dataset_root",
    "set_dataset_root",
    "to_device",
]
