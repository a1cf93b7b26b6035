"""Per-example and per-batch transforms of tabular datasets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kusari.dataset.tabular.tabular_dataset import (
    Indices,
    KeyIndices,
    TabularDataset,
)


def _mode_of(value: Any) -> type | None:
    if isinstance(value, tuple):
        return tuple
    if isinstance(value, dict):
        return dict
    return None


class _TransformBase(TabularDataset):
    _what = "transform"

    def __init__(
        self,
        dataset: TabularDataset,
        keys: str | Sequence[str],
        func: Callable[..., Any],
    ) -> None:
        if not callable(func):
            raise TypeError(
                f"TabularDataset.{self._what}: expected a callable, got "
                f"{type(func).__name__}"
            )
        self._dataset = dataset
        self._keys = (keys,) if isinstance(keys, str) else tuple(keys)
        self._func = func
        self._mode: type | None = None
        self._mode_known = False

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> type | None:
        if not self._mode_known:
            if len(self) == 0:
                raise ValueError(
                    f"TabularDataset.{self._what}: cannot tell the mode of an empty "
                    "dataset (the function was never called)"
                )
            self.get_examples([0], None)
        return self._mode

    def _record_mode(self, value: Any) -> type | None:
        mode = _mode_of(value)
        if self._mode_known and mode is not self._mode:
            raise ValueError(
                f"TabularDataset.{self._what}: the function must always return the "
                f"same type; it returned {type(value).__name__} after "
                f"{getattr(self._mode, '__name__', 'a single value')}"
            )
        self._mode, self._mode_known = mode, True
        return mode

    def _call(self, values: Sequence[Any]) -> Any:
        if self._dataset.mode is dict:
            return self._func(**dict(zip(self._dataset.keys, values, strict=True)))
        return self._func(*values)

    def _pick(self, out: Any, key_index: int) -> Any:
        if isinstance(out, dict):
            return out[self._keys[key_index]]
        if isinstance(out, tuple):
            return out[key_index]
        return out

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class Transform(_TransformBase):
    """Columns produced by applying a function to every example."""

    _what = "transform"

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = range(len(self._keys))
        columns: tuple[list[Any], ...] = tuple([] for _ in key_indices)
        inputs = self._dataset.get_examples(indices, None)
        for values in zip(*inputs, strict=True):
            out = self._call(values)
            self._record_mode(out)
            for col, k in zip(columns, key_indices, strict=True):
                col.append(self._pick(out, k))
        return columns


class TransformBatch(_TransformBase):
    """Columns produced by applying a function to whole input columns."""

    _what = "transform_batch"

    def get_examples(
        self, indices: Indices, key_indices: KeyIndices
    ) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = range(len(self._keys))
        if indices is None:
            n = len(self)
        elif isinstance(indices, slice):
            n = len(range(*indices.indices(len(self))))
        else:
            n = len(indices)
        out = self._call(self._dataset.get_examples(indices, None))
        mode = self._record_mode(out)
        columns = (
            list(out.values())
            if mode is dict
            else list(out)
            if mode is tuple
            else [out]
        )
        if any(len(c) != n for c in columns):
            raise ValueError(
                "TabularDataset.transform_batch: the function must keep the number "
                f"of rows ({n}); got columns of lengths {[len(c) for c in columns]}"
            )
        return tuple(self._pick(out, k) for k in key_indices)
