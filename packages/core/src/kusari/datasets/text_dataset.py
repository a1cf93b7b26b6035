"""TextDataset: the lines of one or more parallel text files."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

from kusari.dataset.dataset_mixin import DatasetMixin


def _per_file(name: str, value: Any, n: int) -> list[Any]:
    if value is None or isinstance(value, str):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError(f"TextDataset: {name} has {len(value)} entries for {n} files")
    return value


class TextDataset(DatasetMixin):
    """Dataset of text lines (newline included), read lazily from files.

    With several files (e.g. a parallel corpus), example ``i`` is the tuple
    of their ``i``-th lines; the files must have the same number of lines.

    Args:
        paths: A path or a list of paths.
        encoding: Encoding (or one per file), as for :func:`open`.
        errors: Error handling (or one per file), as for :func:`open`.
        newline: Newline mode (or one per file), as for :func:`open`.
        filter_func: Keep only lines for which ``filter_func(*lines)`` is true.

    Example:
        >>> import os, tempfile
        >>> p = os.path.join(tempfile.mkdtemp(), 't.txt')
        >>> with open(p, 'w') as f:
        ...     _ = f.write('hello\\nworld\\n')
        >>> d = TextDataset(p)
        >>> len(d), d[1]
        (2, 'world\\n')
        >>> d.close()
    """

    def __init__(
        self,
        paths: str | Sequence[str],
        encoding: str | Sequence[str] | None = None,
        errors: str | Sequence[str] | None = None,
        newline: str | Sequence[str] | None = None,
        filter_func: Callable[..., bool] | None = None,
    ) -> None:
        if isinstance(paths, str):
            paths = [paths]
        if len(paths) == 0:
            raise ValueError("TextDataset: at least one text file must be given")
        n = len(paths)
        self._paths = list(paths)
        self._encoding = _per_file("encoding", encoding, n)
        self._errors = _per_file("errors", errors, n)
        self._newline = _per_file("newline", newline, n)
        self._lock = threading.Lock()
        self._fps: list[IO[str]] | None = None
        self._pid: int | None = None
        # starts[k][j] is the file position where line j of file k begins.
        starts: list[list[int]] = [[] for _ in self._paths]
        lines: list[int] = []
        fps = self._files()
        line_no = 0
        while True:
            for k, fp in enumerate(fps):
                starts[k].append(fp.tell())
            texts = [fp.readline() for fp in fps]
            if not all(texts):
                if any(texts):
                    raise ValueError(
                        f"TextDataset: the files {self._paths} have different "
                        "numbers of lines"
                    )
                break
            if filter_func is None or filter_func(*texts):
                lines.append(line_no)
            line_no += 1
        self._starts = starts
        self._lines = lines

    def __repr__(self) -> str:
        return f"TextDataset({self._paths!r}, len={len(self)})"

    def _files(self) -> list[IO[str]]:
        # Reopen after fork: a forked child must not share file positions.
        if self._fps is None or self._pid != os.getpid():
            self._fps = [
                open(p, encoding=e, errors=r, newline=nl)
                for p, e, r, nl in zip(
                    self._paths,
                    self._encoding,
                    self._errors,
                    self._newline,
                    strict=True,
                )
            ]
            self._pid = os.getpid()
        return self._fps

    def close(self) -> None:
        """Close the underlying files (they reopen on the next access)."""
        if self._fps is not None and self._pid == os.getpid():
            for fp in self._fps:
                fp.close()
        self._fps = None

    def __del__(self) -> None:
        if getattr(self, "_fps", None) is not None:
            self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_fps"] = None
        state["_pid"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._lines)

    def get_example(self, i: int) -> str | tuple[str, ...]:
        if not -len(self) <= i < len(self):
            raise IndexError(
                f"TextDataset: index {i} is out of range for length {len(self)}"
            )
        line_no = self._lines[i]
        with self._lock:
            texts = []
            for k, fp in enumerate(self._files()):
                fp.seek(self._starts[k][line_no])
                texts.append(fp.readline())
        return texts[0] if len(texts) == 1 else tuple(texts)
