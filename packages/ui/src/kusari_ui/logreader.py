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
from typing import Any, BinaryIO

from kusari_ui.safeio import open_regular

logger = logging.getLogger(__name__)

_WS = re.compile(r"[ \t\n\r]*")
_WINDOW = 256
_NEXT = re.compile(r",\s*\{")
_BAD = re.compile("[\udc80-\udcff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_READ = 32 << 20
# No LogReport entry comes near this; a bigger one is junk, not a metric.
MAX_ENTRY = 128 << 20


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
        bad_bytes: Bytes that were not UTF-8 text (skipped).
        first_bad: File offset of the first of them (-1 if none).
        warnings: Other problems worth showing on the run.
    """

    entries: list[dict[str, Any]] = field(default_factory=list)
    state: LogState = field(default_factory=LogState)
    reset: bool = False
    skipped: int = 0
    more: bool = False
    bad_bytes: int = 0
    first_bad: int = -1
    warnings: list[str] = field(default_factory=list)
    # Strings need cleaning (see clean_text): only if the text read had
    # non-ASCII characters or escapes, so plain logs skip the checks.
    clean: bool = True


def _digest(f: Any, offset: int) -> str:
    f.seek(0)
    head = f.read(min(_WINDOW, offset))
    start = max(0, offset - _WINDOW)
    f.seek(start)
    tail = f.read(offset - start)
    return hashlib.sha1(head + b"|" + tail).hexdigest()


def sanitize(entry: dict[str, Any], text: bool = True) -> dict[str, Any]:
    """Replace non-finite floats by None so the entry is strict JSON.

    Strings (keys and values) also lose what no database stores (see
    :func:`clean_text`) unless ``text`` is False: the reader passes False
    for text it knows is plain ASCII without escapes.

    Example:
        >>> sanitize({"main/loss": float("nan"), "epoch": 1})
        {'main/loss': None, 'epoch': 1}
    """
    out: dict[str, Any] = {}
    for k, v in entry.items():
        if text and (not k.isascii() or "\x00" in k):
            k = clean_text(k)
        t = type(v)
        if t is float:
            # inf - inf and nan - nan are nan, which is not equal to 0.0
            out[k] = v if v - v == 0.0 else None
        elif t is str:
            out[k] = v if not text or v.isascii() else clean_text(v)
        elif t is int or t is bool or v is None:
            out[k] = v
        else:
            # Nested values are kept, but as text: the UI shows them verbatim
            # (a nested NaN as the word, since it is text now).
            try:
                out[k] = json.dumps(v, default=str)[:1000]
            except (ValueError, RecursionError):
                out[k] = "(unprintable value)"
    return out


def clean_text(text: str) -> str:
    """``text`` storable in any database.

    Lone surrogates (undecodable bytes, or ``\\udXXX`` escapes in the JSON)
    and NUL become U+FFFD.
    """
    # NUL too: PostgreSQL text columns (metric names) cannot hold it.
    return _SURROGATE.sub("\ufffd", text).replace("\x00", "\ufffd")


def _decode(raw: bytes) -> tuple[str, int, int]:
    """UTF-8 text of ``raw`` with every undecodable byte kept as a lone
    surrogate (``surrogateescape``), so byte offsets survive the round trip.

    Returns:
        The text, the number of undecodable bytes and the index of the first
        one (-1 if none).
    """
    try:
        return raw.decode("utf-8"), 0, -1
    except UnicodeDecodeError as exc:
        first = exc.start
    text = raw.decode("utf-8", "surrogateescape")
    bad = len(_BAD.findall(text))
    return text, bad, first


def read_log(
    path: str | os.PathLike[str],
    state: LogState,
    max_bytes: int = MAX_READ,
    max_entry: int = MAX_ENTRY,
) -> ReadResult | None:
    """Read the complete entries appended to ``path`` since ``state``.

    Only a regular file is read (a FIFO or device named ``log`` raises
    :class:`~kusari_ui.safeio.NotRegularFileError` instead of blocking).
    Bytes that are not UTF-8 are skipped (inside a string they become
    U+FFFD; elsewhere the entry holding them is skipped as malformed) and
    counted in ``ReadResult.bad_bytes``; the other entries are read.

    Args:
        path: The ``log`` file.
        state: The state returned by the previous call (``LogState()`` first).
        max_bytes: Read at most this much per call, bounding memory on huge
            logs; ``ReadResult.more`` then says to call again.
        max_entry: Largest single entry looked for: a log whose next entry
            does not end within this many bytes is not read further (until
            it changes), with a warning in ``ReadResult.warnings``.

    Returns:
        None when the file is unchanged, else a :class:`ReadResult`.

    Raises:
        FileNotFoundError: The file vanished.
        NotRegularFileError: It is not a regular file.
    """
    with open_regular(path) as f:
        st = os.fstat(f.fileno())
        if (st.st_size, st.st_mtime_ns, st.st_ino) == (
            state.size,
            state.mtime_ns,
            state.inode,
        ):
            return None
        return _read_open(path, f, st, state, max_bytes, max_entry)


def _read_open(
    path: Any,
    f: BinaryIO,
    st: os.stat_result,
    state: LogState,
    max_bytes: int,
    max_entry: int,
) -> ReadResult:
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
    text, bad, first_bad = _decode(raw)
    result = ReadResult(state=new_state, reset=reset, more=more)
    result.clean = not text.isascii() or "\\" in text
    pos = 0
    n = len(text)
    if start == 0:
        pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if pos >= n:
            return result
        if text[pos] != "[":
            result.warnings.append(
                f"the log is not a JSON list (it starts with {text[pos]!r})"
            )
            logger.warning("%s: not a JSON list (starts with %r)", path, text[pos])
            result.more = False
            result.state = replace(result.state, size=st.st_size)
            _note_bad_bytes(path, result, bad, start + first_bad)
            return result
        pos += 1
    last_end = _fast_path(text, pos, result) if not more and not bad else None
    if last_end is None:
        last_end = _slow_path(path, text, pos, result, complete=not more)
    if bad:
        # Count only what was consumed: the rest is read (and counted) again.
        bad = len(_BAD.findall(text, 0, last_end)) if more else bad
        _note_bad_bytes(path, result, bad, start + first_bad)
    if last_end:
        offset = start + len(text[:last_end].encode("utf-8", "surrogateescape"))
        result.state = replace(result.state, offset=offset, digest=_digest(f, offset))
    elif more:
        if max_bytes * 2 > max_entry:
            # One entry bigger than anything a LogReport writes: stop here
            # until the file changes rather than read ever larger pieces.
            result.more = False
            result.state = replace(result.state, size=st.st_size)
            result.warnings.append(
                f"an entry at byte {start} is larger than {max_entry} bytes: "
                "the rest of the log is not read"
            )
            logger.warning(
                "%s: entry at %d larger than %d bytes", path, start, max_entry
            )
            return result
        # Not even one whole entry fitted: read a bigger piece.
        return _read_open(path, f, st, state, max_bytes * 2, max_entry)
    return result


def _note_bad_bytes(path: Any, result: ReadResult, bad: int, first: int) -> None:
    if bad <= 0:
        return
    result.bad_bytes += bad
    if result.first_bad < 0:
        result.first_bad = first
    logger.warning(
        "%s: %d bytes that are not UTF-8 text skipped (first at byte %d)",
        path,
        bad,
        first,
    )


def _keep(obj: Any, result: ReadResult, path: Any) -> None:
    if isinstance(obj, dict):
        result.entries.append(sanitize(obj, result.clean))
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
            if isinstance(exc, json.JSONDecodeError) and (
                exc.pos >= len(text.rstrip())
                or exc.msg.startswith("Unterminated string")
            ):
                # It failed only for want of bytes: an entry cut by the read
                # limit or still being written, whatever "," "{" it holds.
                break
            # Resume at the first entry start after the error: one before it
            # may be a nested object of the broken (or cut) entry itself.
            where = getattr(exc, "pos", pos)
            m = _NEXT.search(text, max(pos + 1, where))
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
