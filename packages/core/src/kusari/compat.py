"""Run unmodified Chainer-family code on kusari through import aliases.

``import kusari as chainer`` covers one name; real Chainer scripts also write
``import chainer.functions as F`` and ``from chainer import training``, and the
extension libraries' users import ``chainermn``, ``chainerrl``, ``chainercv``
and ``chainerui``. :func:`install` puts a finder on :data:`sys.meta_path` that
resolves each of those names, and every submodule under them, to the kusari
module of the same path, so both spellings give the very same module object.

From the command line, run a script (or a module with ``-m``) with the aliases
in place::

    python -m kusari.compat train_mnist.py --epoch 1 --device -1
    python -m kusari.compat -m mypackage.train --epoch 1

Example:
    >>> import kusari.compat
    >>> kusari.compat.ALIASES["chainer"]
    'kusari'

The aliases are opt-in and refuse to shadow a real Chainer: where ``chainer``
itself is importable, :func:`install` raises instead of hiding it.

Code run this way gets Chainer's environment too: :func:`install` reads
Chainer's environment variables (:data:`CHAINER_ENV`, e.g. ``CHAINER_DTYPE``
and ``CHAINER_DATASET_ROOT``) where the ``KUSARI_*`` one is not set, and turns
off kusari's freeing of the graph during backward
(``config.free_graph_in_backward``), since Chainer code such as the DCGAN
example backprops twice through one graph. :func:`uninstall` restores both.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types
from collections.abc import Sequence

#: Chainer-family top-level names and the kusari packages that serve them.
ALIASES: dict[str, str] = {
    "chainer": "kusari",
    "chainermn": "kusari_mn",
    "chainerrl": "kusari_rl",
    "chainercv": "kusari_cv",
    "chainerui": "kusari_ui",
}

#: Where each sibling package lives in the kusari repository, for messages.
_FOLDERS = {"kusari_mn": "mn", "kusari_rl": "rl", "kusari_cv": "cv", "kusari_ui": "ui"}

#: Chainer's environment variables that :func:`install` applies, each with
#: the ``kusari.global_config`` entry it sets (None: the dataset root) and
#: the kusari variable that takes precedence when both are set.
CHAINER_ENV: dict[str, tuple[str | None, str]] = {
    "CHAINER_DTYPE": ("dtype", "KUSARI_DTYPE"),
    "CHAINER_DEBUG": ("debug", "KUSARI_DEBUG"),
    "CHAINER_TYPE_CHECK": ("type_check", "KUSARI_TYPE_CHECK"),
    "CHAINER_KEEP_GRAPH_ON_REPORT": ("keep_graph_on_report", ""),
    "CHAINER_LAZY_GRAD_SUM": ("lazy_grad_sum", ""),
    "CHAINER_DATASET_ROOT": (None, "KUSARI_DATASET_ROOT"),
}

# What install() changed, to put back in uninstall(): (config key or None for
# the dataset root, previous value or _MISSING).
_saved: list[tuple[str | None, object]] = []
_MISSING = object()


class _ExistingModuleLoader(importlib.abc.Loader):
    """Hands the import system a module that is already imported elsewhere."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        # The import system keeps the module's own __name__/__spec__ (it only
        # fills attributes that are unset), so `chainer.functions` *is*
        # `kusari.functions`, and pickles/reprs name the real module.
        return importlib.import_module(self.target)

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the target module executed when it was imported."""


class _ChainerxLoader(importlib.abc.Loader):
    """``chainerx``: a module that says it is unavailable, as Chainer's is on
    a build without ChainerX. Scripts import it only to ask."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = "ChainerX is not part of kusari: is_available() is False."
        module.is_available = lambda: False  # type: ignore[attr-defined]
        module.ndarray = type("ndarray", (), {})  # type: ignore[attr-defined]


class ChainerAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``chainer[.x.y]`` to ``kusari[.x.y]`` (and the siblings)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        top, dot, rest = fullname.partition(".")
        if fullname == "chainerx":
            return importlib.util.spec_from_loader(fullname, _ChainerxLoader())
        real_top = ALIASES.get(top)
        if real_top is None:
            return None
        real = real_top + dot + rest
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            if not dot and real_top in _FOLDERS:
                raise ModuleNotFoundError(
                    f"{fullname!r} is served by {real_top!r}, which is not "
                    f"installed: pip install ./packages/{_FOLDERS[real_top]} "
                    "from the kusari repository.",
                    name=fullname,
                )
            return None  # the normal "No module named ..." for a missing submodule
        is_package = found.submodule_search_locations is not None
        return importlib.util.spec_from_loader(
            fullname, _ExistingModuleLoader(real), is_package=is_package
        )


_finder = ChainerAliasFinder()


def _env_value(name: str, key: str | None, text: str) -> object:
    """The config value Chainer derives from ``name=text``, checked."""
    if key is None:
        return text
    if key == "dtype":
        import numpy

        import kusari

        if text == "mixed16":
            return kusari.mixed16
        try:
            dtype = numpy.dtype(text)
        except TypeError:
            dtype = None
        if dtype is None or dtype.kind != "f":
            raise ValueError(
                f"kusari.compat.install(): {name} must be float16, float32, "
                f"float64 or mixed16, got {text!r}"
            )
        return dtype
    # Chainer reads its flags with bool(int(value)).
    try:
        return bool(int(text))
    except ValueError:
        raise ValueError(
            f"kusari.compat.install(): {name} must be an integer (0 or 1), got {text!r}"
        ) from None


def _apply_chainer_environment() -> None:
    """Apply Chainer's settings: its environment and its backward semantics."""
    import kusari
    from kusari.dataset import download

    changes: list[tuple[str | None, object]] = []
    for name, (key, kusari_name) in CHAINER_ENV.items():
        text = os.environ.get(name)
        if text is None or (kusari_name and kusari_name in os.environ):
            continue
        changes.append((key, _env_value(name, key, text)))
    # Chainer keeps every retained array until the graph is dropped, so its
    # code may call backward twice through one graph (DCGAN's updater does).
    changes.append(("free_graph_in_backward", False))
    for key, value in changes:
        if key is None:
            _saved.append((None, download.get_dataset_root()))
            download.set_dataset_root(str(value))
        else:
            _saved.append((key, getattr(kusari.global_config, key, _MISSING)))
            setattr(kusari.global_config, key, value)


def _restore_environment() -> None:
    import kusari
    from kusari.dataset import download

    while _saved:
        key, value = _saved.pop()
        if key is None:
            download.set_dataset_root(str(value))
        elif value is _MISSING:
            # The entry did not exist before install(): remove it again.
            delattr(kusari.global_config, key)
        else:
            setattr(kusari.global_config, key, value)


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return _finder in sys.meta_path


def install() -> None:
    """Make ``chainer``, ``chainermn``, ``chainerrl``, ``chainercv``,
    ``chainerui`` (and ``chainerx``, reported unavailable) importable as kusari.

    It also applies Chainer's environment variables (:data:`CHAINER_ENV`)
    and Chainer's backward semantics (the graph is kept for a second
    backward); :func:`uninstall` undoes both.

    Raises:
        RuntimeError: A real ``chainer`` is imported or importable; the aliases
            would hide it.
        ValueError: A Chainer environment variable has a value Chainer would
            reject too (``CHAINER_DTYPE=int32``, ``CHAINER_DEBUG=yes``).
    """
    if installed():
        return
    existing = sys.modules.get("chainer")
    if existing is not None and getattr(existing, "__name__", "") != "kusari":
        raise RuntimeError(
            "kusari.compat.install(): a real 'chainer' is already imported "
            f"({getattr(existing, '__file__', existing)!r}); not aliasing it."
        )
    real = importlib.util.find_spec("chainer") if existing is None else None
    if real is not None:
        raise RuntimeError(
            "kusari.compat.install(): a real 'chainer' package is installed "
            f"({real.origin}); the alias would hide it. Uninstall Chainer or "
            "use a separate environment to run that code on kusari."
        )
    _apply_chainer_environment()
    sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Remove the aliases and restore the settings :func:`install` changed."""
    if installed():
        sys.meta_path.remove(_finder)
        _restore_environment()
    for name in list(sys.modules):
        if name.partition(".")[0] in ALIASES or name == "chainerx":
            del sys.modules[name]


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m kusari.compat SCRIPT [ARGS...]`` or ``-m MODULE [ARGS...]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.split("Example:")[0].strip() if __doc__ else "")
        print("\nusage: python -m kusari.compat (SCRIPT | -m MODULE) [ARGS ...]")
        raise SystemExit(0 if args else 2)
    install()
    if args[0] == "-m":
        if len(args) < 2:
            raise SystemExit("python -m kusari.compat -m: a module name is required")
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        # As `python script.py` does: the script's folder first on the path,
        # so the example's sibling modules (`import net`) resolve.
        sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
