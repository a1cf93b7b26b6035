"""Incremental reader for LogReport's ``log`` file.

LogReport rewrites the whole file atomically on every report as a JSON list
of dicts. Re-parsing it each time is quadratic over a run, so the reader keeps
the byte offset just after the last complete entry together with the file's
identity and a digest of the bytes around that offset. When the digest still
matches, only the tail is parsed; otherwise the file was replaced by something
else (a restarted run) and it is read from the start.

Example:
    >>> state = LogState()
    >>> out = read_log("result/log", state)  # doctest: +SKIP
    >>> out.entries, out.state.offset  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any

logger = logging.getLogger(__name__)

_WS = re.compile(r"[ \t\n\r]*")
_WINDOW = 256
_NEXT = re.compile(r",\s*\{")
MAX_READ = 32 << 20


def _parse_int(text: str) -> int | float:
    # Huge integers would raise ValueError (int max str digits) or overflow
    # float conversion later; keep them as floats (possibly inf).
    return int(text) if len(text) <= 18 else float(text)


_DECODER = json.JSONDecoder(parse_int=_parse_int)


@dataclass(frozen=True)
class LogState:
    """What the reader remembers about a log file between reads."""

    offset: int = 0
    size: int = 0
    mtime_ns: int = 0
    inode: int = 0
    digest: str = ""


@dataclass
class ReadResult:
    """Entries parsed by one :func:`read_log` call.

    Attributes:
        entries: New complete entries, sanitised (see :func:`sanitize`).
        state: State to pass to the next call.
        reset: True when earlier entries are void (the file was replaced by
            different content) and ``entries`` start from the beginning.
        skipped: Number of elements skipped because they were not dicts.
        more: The file has more bytes than were read: call again.
    """

    entries: list[dict[str, Any]] = field(default_factory=list)
    state: LogState = field(default_factory=LogState)
    reset: bool = False
    skipped: int = 0
    more: bool = False


def _digest(f: Any, offset: int) -> str:
    f.seek(0)
    head = f.read(min(_WINDOW, offset))
    start = max(0, offset - _WINDOW)
    f.seek(start)
    tail = f.read(offset - start)
    return hashlib.sha1(head + b"|" + tail).hexdigest()


def sanitize(entry: dict[str, Any]) -> dict[str, Any]:
    """Replace non-finite floats by None so the entry is strict JSON.

    Example:
        >>> sanitize({"main/loss": float("nan"), "epoch": 1})
        {'main/loss': None, 'epoch': 1}
    """
    out: dict[str, Any] = {}
    for k, v in entry.items():
        t = type(v)
        if t is float:
            # inf - inf and nan - nan are nan, which is not equal to 0.0
            out[k] = v if v - v == 0.0 else None
        elif t is int or t is str or t is bool or v is None:
            out[k] = v
        else:
            # Nested values are kept, but as text: the UI shows them verbatim.
            out[k] = json.dumps(v, allow_nan=False, default=str)[:1000]
    return out


def read_log(
    path: str | os.PathLike[str], state: LogState, max_bytes: int = MAX_READ
) -> ReadResult | None:
    """Read the complete entries appended to ``path`` since ``state``.

    Args:
        path: The ``log`` file.
        state: The state returned by the previous call (``LogState()`` first).
        max_bytes: Read at most this much per call, bounding memory on huge
            logs; ``ReadResult.more`` then says to call again.

    Returns:
        None when the file is unchanged, else a :class:`ReadResult`.

    Raises:
        FileNotFoundError: The file vanished.
    """
    st = os.stat(path)
    if (st.st_size, st.st_mtime_ns, st.st_ino) == (
        state.size,
        state.mtime_ns,
        state.inode,
    ):
        return None
    with open(path, "rb") as f:
        start = 0
        reset = True
        if 0 < state.offset <= st.st_size and _digest(f, state.offset) == state.digest:
            start, reset = state.offset, False
        f.seek(start)
        raw = f.read(max_bytes)
    more = start + len(raw) < st.st_size
    # A partial read must not look "unchanged" to the next call.
    new_state = LogState(
        offset=0 if reset else state.offset,
        digest="" if reset else state.digest,
        size=-1 if more else st.st_size,
        mtime_ns=st.st_mtime_ns,
        inode=st.st_ino,
    )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A binary file, or a multi-byte character cut by a concurrent write
        # or by max_bytes: parse what decodes; a later read sees the rest.
        text = raw[: exc.start].decode("utf-8")
        if exc.start < len(raw) - 4:
            logger.warning("%s: not UTF-8 text at byte %d", path, start + exc.start)
    result = ReadResult(state=new_state, reset=reset, more=more)
    pos = 0
    n = len(text)
    if start == 0:
        pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if pos >= n:
            return result
        if text[pos] != "[":
            logger.warning("%s: not a JSON list (starts with %r)", path, text[pos])
            result.more = False
            return result
        pos += 1
    last_end = _fast_path(text, pos, result) if not more else None
    if last_end is None:
        last_end = _slow_path(path, text, pos, result, complete=not more)
    if last_end:
        offset = start + len(text[:last_end].encode("utf-8"))
        with open(path, "rb") as f:
            digest = _digest(f, offset)
        result.state = replace(result.state, offset=offset, digest=digest)
    elif more:
        # Not even one whole entry fitted: read a bigger piece.
        return read_log(path, state, max_bytes * 2)
    return result


def _keep(obj: Any, result: ReadResult, path: Any) -> None:
    if isinstance(obj, dict):
        result.entries.append(sanitize(obj))
    else:
        result.skipped += 1
        logger.warning("%s: skipped a non-dict entry (%s)", path, type(obj).__name__)


def _fast_path(text: str, pos: int, result: ReadResult) -> int | None:
    """Parse a complete tail (ending in ``]``) in one C-speed call.

    Returns the end of the last entry, or None to fall back to entry-by-entry.
    """
    inner = text[pos:].rstrip()
    if not inner.endswith("]"):
        return None
    inner = inner[:-1].rstrip()
    body = inner.lstrip()
    if body.startswith(","):
        body = body[1:]
    if not body.strip():
        return 0
    try:
        arr = _DECODER.decode("[" + body + "]")
    except (ValueError, RecursionError):
        return None
    for obj in arr:
        _keep(obj, result, "log")
    return pos + len(inner)


def _slow_path(
    path: Any, text: str, pos: int, result: ReadResult, complete: bool
) -> int:
    """Entry-by-entry parse that survives truncation and malformed entries."""
    n = len(text)
    last_end = 0
    while True:
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if pos < n and text[pos] == ",":
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
        if pos >= n or text[pos] == "]":
            break
        try:
            obj, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            m = _NEXT.search(text, pos + 1)
            if m is None:
                # Nothing after it: an entry still being written, unless the
                # list is closed, in which case it is junk.
                if complete and not _looks_truncated(text, pos):
                    logger.warning("%s: malformed last entry at %d: %s", path, pos, exc)
                break
            logger.warning("%s: skipped a malformed entry at %d: %s", path, pos, exc)
            result.skipped += 1
            # Skip past the bad entry for good, so it is not re-read.
            last_end = m.start()
            pos = m.start() + 1
            continue
        pos = last_end = end
        _keep(obj, result, path)
    return last_end


def _looks_truncated(text: str, pos: int) -> bool:
    """True if the unparsable tail is an entry still being written."""
    return "]" not in text[pos:].rstrip()[-1:]
