"""Sliceable datasets: lazy row and column views (ChainerCV's experimental API)."""

from kusari_cv.chainer_experimental.datasets.sliceable.sliceable_dataset import (  # noqa: I001
    SliceableDataset,
)
from kusari_cv.chainer_experimental.datasets.sliceable.getter_dataset import (
    GetterDataset,
)
from kusari_cv.chainer_experimental.datasets.sliceable.concatenated_dataset import (
    ConcatenatedDataset,
)
from kusari_cv.chainer_experimental.datasets.sliceable.transform_dataset import (
    TransformDataset,
)
from kusari_cv.chainer_experimental.datasets.sliceable.tuple_dataset import (
    TupleDataset,
)

__all__ = [
    "ConcatenatedDataset",
    "GetterDataset",
    "SliceableDataset",
    "TransformDataset",
    "TupleDataset",
]
