"""snapshot / snapshot_object: save (and auto-resume from) training state."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from kusari.serializers import npz
from kusari.training import extension
from kusari.training.extensions import snapshot_writers

_Filename = str | Callable[[Any], str]
_DEFAULT_FILENAME = "snapshot_iter_{.updater.iteration}"


class _Serialized(dict[str, Any]):
    """The flat ``{key: array}`` dict a snapshot hands to ``savefun``.

    It is a plain dict to Chainer-style savefuns and to
    :func:`~kusari.serializers.save_npz`, which writes dicts as they are.
    Its ``serialize`` replays the items through any serializer, so that
    savefuns which only speak the serialize protocol (e.g.
    :func:`~kusari.serializers.save_hdf5`) can save it too.
    """

    def serialize(self, serializer: Any) -> None:
        for key, value in self.items():
            serializer(key, value)


def _serialize_now(target: Any) -> _Serialized:
    # npz.serialize keeps references to the live arrays; copy them so that a
    # writer in another thread or process saves this moment's values.
    return _Serialized({k: v.copy() for k, v in npz.serialize(target).items()})


def _natural_key(name: str) -> list[Any]:
    # "snapshot_iter_9" < "snapshot_iter_10": compare digit runs as numbers.
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _find_snapshot_files(fmt: str, path: str) -> list[tuple[int, str]]:
    """Matching files, oldest first (by mtime, then by the numbers in the
    name for files written within the file system's timestamp resolution)."""
    prefix = fmt.split("{")[0]
    suffix = fmt.split("}")[-1] if "}" in fmt else ""
    found = []
    for name in os.listdir(path):
        full = os.path.join(path, name)
        if (
            name.startswith(prefix)
            and name.endswith(suffix)
            and not name.startswith(".")
            and os.path.isfile(full)
        ):
            found.append((os.stat(full).st_mtime_ns, name))
    return sorted(found, key=lambda item: (item[0], _natural_key(item[1])))


_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _load_snapshot(path: str, target: Any) -> None:
    """Load a snapshot written by ``save_npz`` or ``save_hdf5`` (told apart by
    the file's signature, since the name need not say)."""
    with open(path, "rb") as f:
        head = f.read(len(_HDF5_SIGNATURE))
    if head == _HDF5_SIGNATURE:
        from kusari.serializers import hdf5

        hdf5.load_hdf5(path, target)
    else:
        npz.load_npz(path, target)


def _find_latest_snapshot(fmt: str, path: str) -> str | None:
    files = _find_snapshot_files(fmt, path)
    return files[-1][1] if files else None


def _find_stale_snapshots(fmt: str, path: str, n_retains: int) -> Iterator[str]:
    files = _find_snapshot_files(fmt, path)
    for _, name in files[: max(len(files) - n_retains, 0)]:
        yield name


class _Snapshot(extension.Extension):
    """The snapshot extension returned by :func:`snapshot`."""

    trigger = (1, "epoch")
    priority = -100

    @property
    def restores_state(self) -> bool:  # type: ignore[override]
        """True when autoloading: the trainer then initializes it first."""
        return bool(self.autoload)

    @property
    def target(self) -> Any:
        """The object saved (the trainer when ``None``)."""
        return self._target

    def __init__(
        self,
        target: Any = None,
        condition: Callable[[], bool] | None = None,
        writer: Any = None,
        filename: _Filename = _DEFAULT_FILENAME,
        snapshot_on_error: bool = False,
        n_retains: int = -1,
        autoload: bool = False,
    ) -> None:
        self._target = target
        self.filename = filename
        self.condition = condition or (lambda: True)
        self.writer = writer or snapshot_writers.SimpleWriter()
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload

    def initialize(self, trainer: Any) -> None:
        target = trainer if self._target is None else self._target
        outdir = trainer.out
        if isinstance(self.filename, str) and isinstance(
            self.writer, snapshot_writers.Writer
        ):
            # Writes killed mid-way (SIGKILL, power loss) leave their temporary
            # folders behind; only those older than this process are removed.
            snapshot_writers._remove_stale_temporaries(
                outdir, self.filename, snapshot_writers._process_start_time()
            )
        if self.autoload and isinstance(self.filename, str) and os.path.isdir(outdir):
            latest = _find_latest_snapshot(self.filename, outdir)
            if latest is not None:
                _load_snapshot(os.path.join(outdir, latest), target)
        if (
            hasattr(self.writer, "_add_cleanup_hook")
            and self.n_retains > 0
            and isinstance(self.filename, str)
        ):
            fmt, n = self.filename, self.n_retains

            def _cleanup() -> None:
                for name in list(_find_stale_snapshots(fmt, outdir, n)):
                    os.remove(os.path.join(outdir, name))

            self.writer._add_cleanup_hook(_cleanup)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def __call__(self, trainer: Any) -> None:
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer: Any) -> None:
        target = trainer if self._target is None else self._target
        serialized = _serialize_now(target)
        filename = self.filename
        filename = filename(trainer) if callable(filename) else filename.format(trainer)
        self.writer(filename, trainer.out, serialized)

    def finalize(self) -> None:
        if hasattr(self.writer, "finalize"):
            self.writer.finalize()


def snapshot(
    savefun: Callable[..., Any] | None = None,
    filename: _Filename = _DEFAULT_FILENAME,
    *,
    target: Any = None,
    condition: Callable[[], bool] | None = None,
    writer: Any = None,
    snapshot_on_error: bool = False,
    n_retains: int = -1,
    autoload: bool = False,
    **kwargs: Any,
) -> _Snapshot:
    """Extension saving the trainer (or ``target``) to ``trainer.out``.

    Args:
        savefun: ``savefun(path, obj)``; :func:`~kusari.serializers.save_npz`
            by default. Exclusive with ``writer``.
        filename: A format string filled with the trainer
            (``'snapshot_iter_{.updater.iteration}'``) or a callable.
        target: What to save; the trainer by default.
        condition: Save only when ``condition()`` is True.
        writer: A snapshot writer (``SimpleWriter`` by default).
        snapshot_on_error: Also save when the training loop raises.
        n_retains: Keep only the newest ``n_retains`` snapshots (if > 0).
        autoload: At start, load the newest matching snapshot in
            ``trainer.out`` (NPZ) into the target, if any.
    """
    if "num_retain" in kwargs:
        warnings.warn(
            "snapshot: num_retain is deprecated; use n_retains",
            DeprecationWarning,
            stacklevel=2,
        )
        n_retains = kwargs.pop("num_retain")
    if kwargs:
        raise TypeError(f"snapshot: unexpected arguments {sorted(kwargs)}")
    if savefun is not None and writer is not None:
        raise TypeError("snapshot: savefun and writer cannot be given together")
    if writer is None:
        writer = snapshot_writers.SimpleWriter(savefun=savefun or npz.save_npz)
    return _Snapshot(
        target=target,
        condition=condition,
        writer=writer,
        filename=filename,
        snapshot_on_error=snapshot_on_error,
        n_retains=n_retains,
        autoload=autoload,
    )


def snapshot_object(
    target: Any,
    filename: str | Callable[[Any], str],
    savefun: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> _Snapshot:
    """Extension saving ``target`` (e.g. the model) to ``trainer.out``.

    Args:
        target: The object to save.
        filename: A format string filled with the trainer, or a callable.
        savefun: The save function.
        kwargs: As for :func:`snapshot`.
    """
    return snapshot(savefun=savefun, filename=filename, target=target, **kwargs)
