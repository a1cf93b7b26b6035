"""Ready-made datasets and dataset wrappers.

Example:
    >>> import numpy as np
    >>> from kusari import datasets
    >>> d = datasets.TupleDataset(np.arange(4), np.arange(4) * 2)
    >>> train, test = datasets.split_dataset(d, 3)
    >>> len(train), test[0]
    (3, (np.int64(3), np.int64(6)))
"""

from kusari.datasets.cifar import get_cifar10, get_cifar100
from kusari.datasets.concatenated_dataset import ConcatenatedDataset
from kusari.datasets.fashion_mnist import get_fashion_mnist, get_fashion_mnist_labels
from kusari.datasets.image_dataset import (
    ImageDataset,
    LabeledImageDataset,
    LabeledZippedImageDataset,
    MultiZippedImageDataset,
    ZippedImageDataset,
)
from kusari.datasets.kuzushiji_mnist import (
    get_kuzushiji_mnist,
    get_kuzushiji_mnist_labels,
)
from kusari.datasets.mnist import get_mnist
from kusari.datasets.pickle_dataset import (
    PickleDataset,
    PickleDatasetWriter,
    open_pickle_dataset,
    open_pickle_dataset_writer,
)
from kusari.datasets.ptb import get_ptb_words, get_ptb_words_vocabulary
from kusari.datasets.sub_dataset import (
    SubDataset,
    get_cross_validation_datasets,
    get_cross_validation_datasets_random,
    split_dataset,
    split_dataset_n,
    split_dataset_n_random,
    split_dataset_random,
)
from kusari.datasets.svhn import get_svhn
from kusari.datasets.text_dataset import TextDataset
from kusari.datasets.transform_dataset import TransformDataset
from kusari.datasets.tuple_dataset import DictDataset, TupleDataset

__all__ = [
    "ConcatenatedDataset",
    "DictDataset",
    "ImageDataset",
    "LabeledImageDataset",
    "LabeledZippedImageDataset",
    "MultiZippedImageDataset",
    "PickleDataset",
    "PickleDatasetWriter",
    "SubDataset",
    "TextDataset",
    "TransformDataset",
    "TupleDataset",
    "ZippedImageDataset",
    "get_cifar10",
    "get_cifar100",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
    "get_fashion_mnist",
    "get_fashion_mnist_labels",
    "get_kuzushiji_mnist",
    "get_kuzushiji_mnist_labels",
    "get_mnist",
    "get_ptb_words",
    "get_ptb_words_vocabulary",
    "get_svhn",
    "open_pickle_dataset",
    "open_pickle_dataset_writer",
    "split_dataset",
    "split_dataset_n",
    "split_dataset_n_random",
    "split_dataset_random",
]
