"""Incremental LogReport reader: tails, rewrites, truncation, junk."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from ui_testing import make_entries, write_log

from kusari_ui.logreader import LogState, read_log, sanitize


def test_reads_whole_log_then_nothing(tmp_path: Path) -> None:
    log = tmp_path / "log"
    write_log(log, make_entries(20))
    out = read_log(log, LogState())
    assert out is not None and len(out.entries) == 20 and out.reset
    assert out.entries[-1]["iteration"] == 20
    assert read_log(log, out.state) is None  # unchanged file: not even opened


def test_atomic_rewrite_parses_only_the_tail(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log"
    entries = make_entries(30)
    write_log(log, entries[:10])
    out = read_log(log, LogState())
    assert out is not None
    write_log(log, entries)  # LogReport rewrites everything, new inode
    import kusari_ui.logreader as lr

    seen: list[str] = []
    real = lr._DECODER

    class Spy:
        def decode(self, s: str):
            seen.append(s)
            return real.decode(s)

        def raw_decode(self, s: str, idx: int = 0):
            seen.append(s[idx:])
            return real.raw_decode(s, idx)

    monkeypatch.setattr(lr, "_DECODER", Spy())
    out2 = read_log(log, out.state)
    assert out2 is not None and not out2.reset
    assert [e["iteration"] for e in out2.entries] == list(range(11, 31))
    # the first ten entries were not parsed again
    assert seen and not any('"iteration": 10,' in s for s in seen)


@pytest.mark.parametrize("max_bytes", [300, 1000, 4096])
def test_bounded_reads_match_one_read(tmp_path: Path, max_bytes: int) -> None:
    log = tmp_path / "log"
    entries = make_entries(100)
    for e in entries:
        e["nested"] = [1, 2]  # a "]" inside entries must not fool the reader
        e["name"] = "ü✓"  # multi-byte characters cut at chunk boundaries
    write_log(log, entries)
    got: list[dict] = []
    state = LogState()
    for _ in range(1000):
        out = read_log(log, state, max_bytes=max_bytes)
        if out is None:
            break
        got.extend(out.entries)
        state = out.state
        if not out.more:
            break
    assert [e["iteration"] for e in got] == list(range(1, 101))
    assert read_log(log, state, max_bytes=max_bytes) is None


def test_truncated_write_is_resumed(tmp_path: Path, caplog) -> None:
    log = tmp_path / "log"
    text = json.dumps(make_entries(5), indent=4)
    cut = text.index('"iteration": 4')  # in the middle of the fourth entry
    log.write_text(text[:cut])
    with caplog.at_level(logging.WARNING):
        out = read_log(log, LogState())
    assert out is not None and len(out.entries) == 3
    assert not caplog.records  # a file being written is not an error
    log.write_text(text)
    out2 = read_log(log, out.state)
    assert out2 is not None and not out2.reset
    assert [e["iteration"] for e in out2.entries] == [4, 5]


def test_changed_prefix_resets(tmp_path: Path) -> None:
    log = tmp_path / "log"
    write_log(log, make_entries(10))
    out = read_log(log, LogState())
    assert out is not None
    other = make_entries(12)
    other[0]["main/loss"] = 123.0  # a new run reusing the folder
    write_log(log, other)
    out2 = read_log(log, out.state)
    assert out2 is not None and out2.reset and len(out2.entries) == 12


def test_shrunk_file_resets(tmp_path: Path) -> None:
    log = tmp_path / "log"
    write_log(log, make_entries(10))
    out = read_log(log, LogState())
    assert out is not None
    write_log(log, make_entries(3))
    out2 = read_log(log, out.state)
    assert out2 is not None and out2.reset and len(out2.entries) == 3


def test_nan_inf_huge_and_non_numeric(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.write_text(
        '[{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e999, "e": '
        + "9" * 5000
        + ', "f": "text", "g": [1, 2], "iteration": 1}]'
    )
    out = read_log(log, LogState())
    assert out is not None and len(out.entries) == 1
    e = out.entries[0]
    assert e["a"] is None and e["b"] is None and e["c"] is None and e["d"] is None
    assert e["e"] is None  # too big for a float: inf, then None
    assert e["f"] == "text" and e["g"] == "[1, 2]"
    json.dumps(e, allow_nan=False)  # strict JSON from here on


def test_malformed_entry_is_skipped_with_warning(tmp_path: Path, caplog) -> None:
    log = tmp_path / "log"
    log.write_text('[{"iteration": 1}, {"iteration": 2 oops}, {"iteration": 3}, 7]')
    with caplog.at_level(logging.WARNING, logger="kusari_ui.logreader"):
        out = read_log(log, LogState())
    assert out is not None
    assert [e["iteration"] for e in out.entries] == [1, 3]
    assert out.skipped == 2
    assert any("malformed" in r.message for r in caplog.records)


@pytest.mark.parametrize(
    "content",
    [b"\x00\x01\xff\xfe binary \x89PNG", b'{"not": "a list"}', b"", b"   ", b"[]"],
)
def test_junk_files_give_no_entries(tmp_path: Path, content: bytes) -> None:
    log = tmp_path / "log"
    log.write_bytes(content)
    out = read_log(log, LogState())
    assert out is not None and out.entries == []


def test_unicode_offsets(tmp_path: Path) -> None:
    log = tmp_path / "log"
    entries = [{"iteration": i, "note": "損失 ✓"} for i in range(3)]
    write_log(log, entries)
    out = read_log(log, LogState())
    write_log(log, entries + [{"iteration": 3, "note": "ü"}])
    assert out is not None
    out2 = read_log(log, out.state)
    assert out2 is not None and not out2.reset
    assert out2.entries == [{"iteration": 3, "note": "ü"}]


def test_vanished_file_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_log(tmp_path / "nope", LogState())


def test_sanitize_keeps_plain_values() -> None:
    assert sanitize({"x": 1, "y": True, "z": None}) == {"x": 1, "y": True, "z": None}
    assert os.sep  # keep os imported for platform-neutral paths above
