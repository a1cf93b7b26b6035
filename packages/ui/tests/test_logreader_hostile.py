"""The log reader on broken and hostile files: bad bytes, FIFOs, huge entries."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ui_testing import make_entries

from kusari_ui.logreader import LogState, read_log, sanitize
from kusari_ui.safeio import NotRegularFileError


def _dump(entries: list[dict]) -> bytes:
    return json.dumps(entries, indent=4).encode()


def test_bad_bytes_inside_strings_are_replaced(tmp_path: Path) -> None:
    log = tmp_path / "log"
    raw = _dump([{"iteration": 1, "note": "AAA"}, {"iteration": 2}])
    raw = raw.replace(b"AAA", b"A\xff\xfeA")  # two bytes that are not UTF-8
    log.write_bytes(raw)
    out = read_log(log, LogState())
    assert out is not None
    assert [e["iteration"] for e in out.entries] == [1, 2]
    assert out.entries[0]["note"] == "A\ufffd\ufffdA"
    assert out.bad_bytes == 2 and out.first_bad == raw.index(b"\xff")
    # The offset is exact in bytes: an appended entry is read alone.
    raw2 = raw.rstrip(b"]\n") + b',\n    {"iteration": 3}\n]'
    log.write_bytes(raw2)
    out2 = read_log(log, out.state)
    assert out2 is not None and not out2.reset
    assert [e["iteration"] for e in out2.entries] == [3] and out2.bad_bytes == 0


def test_bad_bytes_between_entries_skip_only_that_entry(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_bytes(
        b'[{"iteration": 1}, {"iteration": 2, \xc0\xc1: 1}, {"iteration": 3}]'
    )
    out = read_log(log, LogState())
    assert out is not None
    assert [e["iteration"] for e in out.entries] == [1, 3]
    assert out.skipped == 1 and out.bad_bytes == 2


def test_one_bad_byte_does_not_stall_a_growing_log(tmp_path: Path) -> None:
    """Before, everything after the first bad byte was never read."""
    log = tmp_path / "log"
    entries = make_entries(50)
    raw = _dump(entries[:10]).replace(b'"epoch"', b'"ep\x80och"', 1)
    log.write_bytes(raw)
    out = read_log(log, LogState(), max_bytes=256)
    total = list(out.entries) if out else []
    while out is not None and out.more:
        out = read_log(log, out.state, max_bytes=256)
        total += out.entries if out else []
    assert len(total) == 10
    assert "ep\ufffdoch" in total[0]


def test_surrogate_escapes_and_nul_in_keys_are_cleaned() -> None:
    entry = json.loads('{"a\\ud800": "b\\udfff", "k\\u0000": 1, "ok": "ü"}')
    clean = sanitize(entry)
    assert clean == {"a\ufffd": "b\ufffd", "k\ufffd": 1, "ok": "ü"}
    json.dumps(clean).encode("utf-8")  # storable anywhere


def test_fifo_named_log_is_refused_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "log")
    with pytest.raises(NotRegularFileError, match="FIFO"):
        read_log(tmp_path / "log", LogState())


def test_entry_larger_than_the_cap_stops_with_a_warning(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text('[{"iteration": 1}, {"blob": "' + "x" * 5000 + '"}')
    out = read_log(log, LogState(), max_bytes=64, max_entry=1024)
    assert out is not None
    assert [e["iteration"] for e in out.entries] == [1]
    out = read_log(log, out.state, max_bytes=64, max_entry=1024)
    assert out is not None and not out.more and out.entries == []
    assert "larger than 1024 bytes" in out.warnings[0]
    # Unchanged since: not read again on every crawl.
    assert read_log(log, out.state, max_bytes=64, max_entry=1024) is None


def test_not_a_list_is_a_warning_and_not_reread(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_bytes(b'{"iteration": 1}' + b" " * 500)
    out = read_log(log, LogState(), max_bytes=64)
    assert out is not None and out.entries == [] and not out.more
    assert "not a JSON list" in out.warnings[0]
    assert read_log(log, out.state, max_bytes=64) is None


def test_nested_non_finite_values_become_text(tmp_path: Path) -> None:
    """Found by the fuzz test: a nested Infinity used to raise ValueError."""
    log = tmp_path / "log"
    log.write_text('[{"iteration": 1, "hist": [Infinity, NaN, 1]}]')
    out = read_log(log, LogState())
    assert out is not None
    assert out.entries == [{"iteration": 1, "hist": "[Infinity, NaN, 1]"}]


@pytest.mark.parametrize("max_bytes", [8, 13, 30])
def test_entry_cut_inside_a_nested_object_is_not_skipped(
    tmp_path: Path, max_bytes: int
) -> None:
    """Found by the fuzz test: a read limit falling inside an entry that holds
    ``, {`` made the reader skip that entry as malformed."""
    log = tmp_path / "log"
    items = [{"": [None, {}], "k\U00010000": 1}, {}]
    log.write_text(json.dumps(items, indent=4))
    state, got = LogState(), []
    while True:
        out = read_log(log, state, max_bytes=max_bytes)
        if out is None:
            break
        got += out.entries
        state = out.state
        assert out.skipped == 0
        if not out.more:
            break
    assert got == [sanitize(i) for i in items]
