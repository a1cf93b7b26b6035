"""Global and thread-local configuration (``kusari.config``).

``global_config`` holds the process-wide defaults. ``config`` is the view the
code reads: a value set on it applies to the current thread only and shadows
the global one. ``using_config`` changes a value for the span of a ``with``
block.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any


class GlobalConfig:
    """Process-wide configuration shared by every thread.

    Example:
        >>> import kusari
        >>> kusari.global_config.train
        True
    """

    def __init__(self) -> None:
        super().__setattr__("_values", {})

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"kusari.global_config has no key {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self._values[name] = value
        _bump_generation()

    def __delattr__(self, name: str) -> None:
        try:
            del self._values[name]
        except KeyError:
            raise AttributeError(f"kusari.global_config has no key {name!r}") from None
        _bump_generation()

    def show(self, file: Any = None) -> None:
        """Print every key and value, sorted by key."""
        file = sys.stdout if file is None else file
        _write_table(file, {key: self._values[key] for key in self._values})


def _write_table(file: Any, values: dict[str, Any]) -> None:
    """One ``key value`` line per key, sorted, with the values aligned one
    space after the longest key (Chainer's layout, which code parses)."""
    width = max((len(key) for key in values), default=0)
    for key in sorted(values):
        file.write(f"{key:<{width}} {values[key]}\n")


class LocalConfig(threading.local):
    """Thread-local configuration falling back to a :class:`GlobalConfig`.

    Reading a key that was never set in this thread returns the global value;
    setting a key affects this thread only.

    Example:
        >>> import kusari
        >>> with kusari.using_config('train', False):
        ...     kusari.config.train
        False
    """

    def __init__(self, global_config: GlobalConfig) -> None:
        super().__setattr__("_global", global_config)

    def __getattr__(self, name: str) -> Any:
        # Only reached when this thread has not set `name` itself.
        return getattr(self._global, name)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        _bump_generation()

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        _bump_generation()

    def show(self, file: Any = None) -> None:
        """Print the effective value of every key in this thread."""
        file = sys.stdout if file is None else file
        keys = set(self._global._values) | {
            k for k in self.__dict__ if not k.startswith("_")
        }
        _write_table(file, {key: getattr(self, key) for key in keys})


# The autograd core reads a few keys on every call. Reading them through
# LocalConfig.__getattr__ costs a Python call each; instead each thread keeps
# a snapshot of those keys, refreshed when any configuration changes
# (`generation` moves on every set/delete, global or local).
_HOT_KEYS = ("enable_backprop", "type_check", "debug")
_generation = [0]


def _bump_generation() -> None:
    _generation[0] += 1
    # Refresh this thread's snapshot at once: code that reads `_hot` then
    # sees the new values from the very first operation inside the block
    # (a `with no_backprop_mode():` records no graph from its first op). A
    # change made in another thread (global_config) still leaves this
    # thread's snapshot stale, which is why readers also compare generations.
    try:
        _refresh(_hot)
    except KeyError:
        # A hot key is not set yet: `import kusari` is still setting the
        # defaults one by one. The snapshot stays stale until first use.
        pass


class _HotFlags(threading.local):
    generation = -1
    enable_backprop = True
    type_check = True
    debug = False
    # No graph, no type checks, no debug checks: arithmetic on Variables may
    # then run directly on their arrays (see functions/math/basic_math.py).
    plain = False


_hot = _HotFlags()


def hot_flags() -> _HotFlags:
    """Return this thread's snapshot of the keys the autograd core reads."""
    h = _hot
    if h.generation != _generation[0]:
        try:
            _refresh(h)
        except KeyError as e:
            # As reading `config.<key>` would say.
            raise AttributeError(
                f"kusari.global_config has no key {e.args[0]!r}"
            ) from None
    return h


def _refresh(h: _HotFlags) -> None:
    generation = _generation[0]
    # What `config.<key>` returns (this thread's value, else the global
    # one), read from the dicts behind it: every change of the configuration
    # refreshes, and LocalConfig.__getattr__ would cost a Python call a key.
    # All keys are read before anything is stored, so a missing key (a
    # KeyError) leaves the snapshot marked stale rather than half updated.
    local = config.__dict__
    shared = global_config._values
    enable_backprop = (
        local["enable_backprop"]
        if "enable_backprop" in local
        else shared["enable_backprop"]
    )
    type_check = local["type_check"] if "type_check" in local else shared["type_check"]
    debug = local["debug"] if "debug" in local else shared["debug"]
    h.enable_backprop = enable_backprop
    h.type_check = type_check
    h.debug = debug
    h.plain = not (enable_backprop or type_check or debug)
    h.generation = generation


global_config = GlobalConfig()
config = LocalConfig(global_config)


@contextlib.contextmanager
def using_config(name: str, value: Any, config: LocalConfig = config) -> Iterator[None]:
    """Set a configuration key for the duration of a ``with`` block.

    Args:
        name: The key, e.g. ``'train'`` or ``'enable_backprop'``.
        value: Its value inside the block.
        config: The configuration to change (the thread-local one by default).

    Example:
        >>> import kusari
        >>> with kusari.using_config('debug', True):
        ...     kusari.is_debug()
        True
    """
    if hasattr(config, "__dict__") and name in config.__dict__:
        old = config.__dict__[name]
        setattr(config, name, value)
        try:
            yield
        finally:
            setattr(config, name, old)
    else:
        setattr(config, name, value)
        try:
            yield
        finally:
            delattr(config, name)
