"""Tabular datasets: column-oriented datasets with slicing, joins, transforms.

Example:
    >>> from kusari.dataset import tabular
    >>> d = tabular.from_data({'x': [1, 2, 3], 'y': [4, 5, 6]})
    >>> d.slice[1:, 'y'].fetch()
    [5, 6]
"""

from kusari.dataset.tabular.delegate_dataset import DelegateDataset
from kusari.dataset.tabular.from_data import from_data

__all__ = ["DelegateDataset", "from_data"]
