"""PickleDataset: random access to a file of consecutive pickles.

.. warning::
   Unpickling runs arbitrary code. Only open pickle datasets that you (or
   someone you trust) wrote; never load one downloaded from an untrusted
   source.
"""

from __future__ import annotations

import os
import pickle
import threading
from types import TracebackType
from typing import IO, Any

from kusari.dataset.dataset_mixin import DatasetMixin


class PickleDatasetWriter:
    """Append examples to a pickle dataset file.

    **Trusted input only**: files read back with :class:`PickleDataset`
    are unpickled, which can execute code.

    Args:
        writer: A binary file object opened for writing.
        protocol: Pickle protocol.

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> w = PickleDatasetWriter(buf)
        >>> w.write({'x': 1})
        >>> w.flush()
        >>> len(PickleDataset(buf))
        1
    """

    def __init__(
        self, writer: IO[bytes], protocol: int = pickle.HIGHEST_PROTOCOL
    ) -> None:
        self._writer = writer
        self._protocol = protocol

    def __repr__(self) -> str:
        return f"PickleDatasetWriter(protocol={self._protocol})"

    def write(self, x: Any) -> None:
        """Append one example."""
        pickle.dump(x, self._writer, protocol=self._protocol)

    def flush(self) -> None:
        """Flush the underlying file."""
        self._writer.flush()

    def close(self) -> None:
        """Close the underlying file."""
        self._writer.close()

    def __enter__(self) -> PickleDatasetWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class PickleDataset(DatasetMixin):
    """Dataset reading the pickles written by :class:`PickleDatasetWriter`.

    **Trusted input only**: reading an example unpickles it, which can
    execute arbitrary code.

    Args:
        reader: A seekable binary file object.

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> w = PickleDatasetWriter(buf)
        >>> for i in range(3):
        ...     w.write(i * i)
        >>> PickleDataset(buf)[2]
        4
    """

    def __init__(self, reader: IO[bytes]) -> None:
        if not reader.seekable():
            raise ValueError("PickleDataset: the reader must support seek()")
        self._reader = reader
        self._lock = threading.Lock()
        self._positions: list[int] = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                # Loading is the only portable way to find where a pickle ends.
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)

    def __repr__(self) -> str:
        return f"PickleDataset(len={len(self)})"

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, i: int) -> Any:
        with self._lock:
            self._reader.seek(self._positions[i])
            return pickle.load(self._reader)

    def close(self) -> None:
        """Close the underlying file."""
        self._reader.close()

    def __enter__(self) -> PickleDataset:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class _FilePickleDataset(PickleDataset):
    """A PickleDataset on a named file: reopened in forked/unpickled copies."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._pid = os.getpid()
        super().__init__(open(path, "rb"))

    def get_example(self, i: int) -> Any:
        if self._pid != os.getpid():
            self._reader = open(self._path, "rb")
            self._pid = os.getpid()
        return super().get_example(i)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_reader"], state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reader = open(self._path, "rb")
        self._pid = os.getpid()
        self._lock = threading.Lock()


def open_pickle_dataset(path: str | os.PathLike[str]) -> PickleDataset:
    """Open a pickle dataset file for reading (**trusted files only**).

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), 'd.pkl')
        >>> with open_pickle_dataset_writer(p) as w:
        ...     w.write('a')
        >>> with open_pickle_dataset(p) as d:
        ...     d[0]
        'a'
    """
    return _FilePickleDataset(os.fspath(path))


def open_pickle_dataset_writer(
    path: str | os.PathLike[str], protocol: int = pickle.HIGHEST_PROTOCOL
) -> PickleDatasetWriter:
    """Open a pickle dataset file for writing.

    Example:
        >>> import os, tempfile
        >>> w = open_pickle_dataset_writer(os.path.join(tempfile.mkdtemp(), 'x'))
        >>> w.write(1)
        >>> w.close()
    """
    return PickleDatasetWriter(open(path, "wb"), protocol)
