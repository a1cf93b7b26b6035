"""Save and load objects that support the ``serialize`` protocol.

NPZ (:func:`save_npz`, :func:`load_npz`) is the default format; HDF5
(:func:`save_hdf5`, :func:`load_hdf5`) needs the optional h5py package.
"""

from kusari.serializers.hdf5 import (
    HDF5Deserializer,
    HDF5Serializer,
    load_hdf5,
    save_hdf5,
)
from kusari.serializers.npz import (
    DictionarySerializer,
    NpzDeserializer,
    load_npz,
    save_npz,
)

__all__ = [
    "DictionarySerializer",
    "HDF5Deserializer",
    "HDF5Serializer",
    "NpzDeserializer",
    "load_hdf5",
    "load_npz",
    "save_hdf5",
    "save_npz",
]
