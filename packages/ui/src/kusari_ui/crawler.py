"""Finds runs under project folders and ingests their logs incrementally.

A run is a folder (the project root included) holding a ``log`` or ``args``
file. Each crawl stats every known log and parses only what was appended
(see :mod:`kusari_ui.logreader`); runs whose folder vanished are marked
``missing`` and keep their data.

Example:
    >>> crawl_project(session, project)  # doctest: +SKIP
    CrawlStats(new_runs=2, updated_runs=2, new_entries=400, missing_runs=0)
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from kusari_ui import commands as cmd_files
from kusari_ui import downsample
from kusari_ui.logreader import LogState, read_log
from kusari_ui.models import (
    LogChunk,
    Project,
    Result,
    SeriesCache,
    pack_entries,
    unpack_entries,
    utcnow,
)
from kusari_ui.paths import is_within
from kusari_ui.runfiles import (
    load_args,
    note_read,
    read_warnings,
    write_warnings,
)
from kusari_ui.status import parse_status_file

logger = logging.getLogger(__name__)

CHUNK = 1000
MAX_DEPTH = 4
X_KEYS = ("epoch", "iteration", "elapsed_time")
MAX_KEY = 512  # SeriesCache.key length
# Seconds one crawl spends reading one log before moving on (see crawl_result).
FILE_TIME_BUDGET = 20.0


@dataclass
class CrawlStats:
    """Counts from one crawl."""

    new_runs: int = 0
    updated_runs: int = 0
    new_entries: int = 0
    missing_runs: int = 0


def _is_metric(value: Any) -> bool:
    # Entries are sanitised: floats are finite, so only the type and the
    # magnitude (charts cannot scale 1e300) need checking.
    t = type(value)
    return (t is float or t is int) and -1e300 < value < 1e300


def find_runs(root: str, max_depth: int = MAX_DEPTH) -> list[str]:
    """Relative paths of run folders under ``root`` ("." for the root).

    Symlinked folders are not followed, so a link cannot pull files from
    outside the project into it.

    Example:
        >>> find_runs("/path/to/result")  # doctest: +SKIP
        ['run1', 'run2']
    """
    found: list[str] = []

    def walk(path: str, rel: str, depth: int) -> None:
        try:
            entries = list(os.scandir(path))
        except OSError:
            return
        names = {e.name for e in entries if e.is_file(follow_symlinks=False)}
        if "log" in names or "args" in names:
            found.append(rel)
            return
        if depth >= max_depth:
            return
        for e in sorted(entries, key=lambda e: e.name):
            if e.name.startswith(".") or not e.is_dir(follow_symlinks=False):
                continue
            walk(e.path, e.name if rel == "." else f"{rel}/{e.name}", depth + 1)

    walk(root, ".", 0)
    return found


def ingest_entries(
    session: Session, result: Result, entries: list[dict[str, Any]], reset: bool
) -> None:
    """Append sanitised ``entries`` to ``result``: chunks, last values, series.

    Args:
        session: The session ``result`` belongs to (not committed here).
        result: The run.
        entries: New log entries, in order.
        reset: Drop everything ingested before first.
    """
    if reset and result.n_entries:
        session.execute(delete(LogChunk).where(LogChunk.result_id == result.id))
        session.execute(delete(SeriesCache).where(SeriesCache.result_id == result.id))
        result.n_entries = 0
        result.last_values_json = "{}"
    if not entries:
        return
    start = result.n_entries
    _append_chunks(session, result, entries, start)
    last = json.loads(result.last_values_json or "{}")
    caches = {
        c.key: c
        for c in session.scalars(
            select(SeriesCache).where(SeriesCache.result_id == result.id)
        )
    }
    states: dict[str, dict[str, Any]] = {}
    add = downsample.add_point
    for i, entry in enumerate(entries, start):
        xs = [entry.get(k) for k in X_KEYS]
        xs = [x if _is_metric(x) else None for x in xs]
        for key, value in entry.items():
            t = type(value)
            if (t is not float and t is not int) or not -1e300 < value < 1e300:
                continue
            last[key] = value
            state = states.get(key)
            if state is None:
                if len(key) > MAX_KEY:
                    continue  # kept in the raw entries, but not charted
                cache = caches.get(key)
                state = json.loads(cache.data) if cache else downsample.new_state()
                states[key] = state
            add(state, [i, xs[0], xs[1], xs[2], value])
    for key, state in states.items():
        text = json.dumps(state, separators=(",", ":"))
        pts = json.dumps(downsample.points(state), separators=(",", ":"))
        cache = caches.get(key)
        if cache is None:
            session.add(
                SeriesCache(result_id=result.id, key=key, data=text, points=pts)
            )
        else:
            cache.data, cache.points = text, pts
    result.last_values_json = json.dumps(last, separators=(",", ":"))
    result.n_entries = start + len(entries)


def _append_chunks(
    session: Session, result: Result, entries: list[dict[str, Any]], start: int
) -> None:
    pending = entries
    if start:
        tail = session.scalars(
            select(LogChunk)
            .where(LogChunk.result_id == result.id)
            .order_by(LogChunk.start.desc())
            .limit(1)
        ).first()
        # Top up a short last chunk so live runs do not leave a trail of
        # one-entry rows behind them.
        if tail is not None and tail.count < CHUNK:
            room = CHUNK - tail.count
            data = unpack_entries(tail.data)
            data.extend(pending[:room])
            tail.data = pack_entries(data)
            tail.count = len(data)
            start += min(room, len(pending))
            pending = pending[room:]
    rows = [
        {
            "result_id": result.id,
            "start": start + i,
            "count": len(pending[i : i + CHUNK]),
            "data": pack_entries(pending[i : i + CHUNK]),
        }
        for i in range(0, len(pending), CHUNK)
    ]
    if rows:
        session.execute(LogChunk.__table__.insert(), rows)  # type: ignore[attr-defined]


def crawl_result(
    session: Session,
    project: Project,
    result: Result,
    time_budget: float = FILE_TIME_BUDGET,
) -> int:
    """Refresh one folder run; returns the number of new entries.

    A huge log is read for at most ``time_budget`` seconds per call; the rest
    is read by the next crawl, so one run cannot hold the crawl (and the
    ingest lock) for long.
    """
    assert project.path is not None
    warn = read_warnings(result)
    try:
        return _crawl_result(session, project, result, warn, time_budget)
    finally:
        write_warnings(result, warn)


def _crawl_result(
    session: Session,
    project: Project,
    result: Result,
    warn: dict[str, Any],
    time_budget: float,
) -> int:
    assert project.path is not None
    run_dir = Path(project.path) / result.path_name
    if not run_dir.is_dir() or not is_within(project.path, run_dir):
        if result.status != "missing":
            result.status = "missing"
        return 0
    args_path = run_dir / "args"
    try:
        st = args_path.stat()
    except OSError:
        st = None
    if st is not None and st.st_mtime_ns != result.args_mtime_ns:
        if is_within(project.path, args_path):
            args, warn["args"] = load_args(args_path)
            if args is not None:
                result.args_json = json.dumps(args)
        result.args_mtime_ns = st.st_mtime_ns
    # Only the job's status file and its log tell about the run: the
    # commands file the server writes is no sign of life.
    status = parse_status_file(cmd_files.read_status(run_dir))
    text = json.dumps(status, separators=(",", ":"))
    if text != result.status_json:
        result.status_json = text
    job_state = str(status.get("state", "unknown"))
    if result.status != job_state:
        result.status = job_state
    log_path = run_dir / "log"
    try:
        log_mode = log_path.stat().st_mode
    except OSError:
        return 0
    if not stat.S_ISREG(log_mode):
        warn["log"] = "not a regular file: not read"
        return 0
    if not is_within(project.path, log_path):
        warn["log"] = "a link out of the project folder: not read"
        return 0
    state = LogState(
        offset=result.log_offset,
        size=result.log_size,
        mtime_ns=result.log_mtime_ns,
        inode=result.log_inode,
        digest=result.log_digest,
    )
    total = 0
    t0 = time.monotonic()
    while True:
        try:
            out = read_log(log_path, state)
        except FileNotFoundError:
            return total  # replaced between stat and open: next crawl
        except OSError as exc:
            logger.warning("%s: unreadable log (%s)", log_path, exc)
            warn["log"] = f"not read ({exc.strerror or exc})"
            return total
        if out is None:
            return total
        note_read(warn, out)
        ingest_entries(session, result, out.entries, out.reset)
        state = s = out.state
        result.log_offset, result.log_size = s.offset, s.size
        result.log_mtime_ns, result.log_inode, result.log_digest = (
            s.mtime_ns,
            s.inode,
            s.digest,
        )
        _note_write(result, s.mtime_ns / 1e9)
        total += len(out.entries)
        if not out.more or time.monotonic() - t0 > time_budget:
            return total
        write_warnings(result, warn)
        session.commit()  # a huge first ingest shows up batch by batch


def _note_write(result: Result, mtime: float) -> None:
    """Record a log write at ``mtime`` and smooth the interval between writes."""
    previous = result.last_activity or 0.0
    if previous > 0 and mtime > previous:
        dt = mtime - previous
        old = result.log_interval or 0.0
        result.log_interval = dt if old <= 0 else 0.5 * old + 0.5 * dt
    if mtime > previous:
        result.last_activity = mtime


# Serialises ingest within the process (crawler thread, POST /crawl, POST /logs).
INGEST_LOCK = threading.RLock()


class CrawlBusyError(RuntimeError):
    """Another crawl or ingest held the ingest lock for too long."""


def crawl_project(
    session: Session, project: Project, lock_timeout: float = -1
) -> CrawlStats:
    """Discover runs of ``project`` and ingest their new log entries.

    Commits after each run, so a big first ingest shows up progressively.
    Crawls are serialised within the process: the background thread and a
    ``POST /crawl`` must not both ingest the same tail.

    Args:
        session: A session (committed here).
        project: The project to crawl.
        lock_timeout: Seconds to wait for another crawl to finish (-1:
            as long as it takes).

    Raises:
        CrawlBusyError: Another crawl still ran after ``lock_timeout``.
    """
    if not INGEST_LOCK.acquire(timeout=lock_timeout):
        raise CrawlBusyError(
            f"another crawl has been running for over {lock_timeout:g} s"
        )
    try:
        return _crawl_project(session, project)
    finally:
        INGEST_LOCK.release()


def _crawl_project(session: Session, project: Project) -> CrawlStats:
    stats = CrawlStats()
    if project.path is None:
        return stats
    known = {
        r.path_name: r
        for r in session.scalars(
            select(Result).where(
                Result.project_id == project.id, Result.source == "folder"
            )
        )
    }
    root = project.path
    present = set(find_runs(root)) if os.path.isdir(root) else set()
    for rel in sorted(present - known.keys()):
        name = os.path.basename(os.path.abspath(root)) if rel == "." else rel
        r = Result(project_id=project.id, path_name=rel, name=name[:1024])
        session.add(r)
        session.flush()
        known[rel] = r
        stats.new_runs += 1
    for rel, r in known.items():
        if rel not in present:
            if r.status != "missing":
                r.status = "missing"
                stats.missing_runs += 1
            continue
        try:
            n = crawl_result(session, project, r)
        except Exception:  # one bad run must not stop the crawl
            logger.exception("crawling %s/%s failed", root, rel)
            session.rollback()
            continue
        if n:
            stats.updated_runs += 1
            stats.new_entries += n
        session.commit()
    project.crawled_at = utcnow()
    session.commit()
    return stats


class CrawlState:
    """What the background crawler is doing, for the API to report.

    Attributes:
        running: A background crawler thread is alive.
        first_pass_done: It finished its first crawl of every project.
        current: The id of the project being crawled now, or None.
    """

    def __init__(self) -> None:
        self.running = False
        self.first_pass_done = False
        self.current: int | None = None

    @property
    def crawling(self) -> bool:
        """The first pass is under way: entry counts are still growing."""
        return self.running and not self.first_pass_done


def crawl_all(
    factory: sessionmaker[Session], state: CrawlState | None = None
) -> CrawlStats:
    """Crawl every project with a folder; returns the summed stats."""
    total = CrawlStats()
    with factory() as session:
        for project in session.scalars(
            select(Project).where(Project.path.is_not(None))
        ):
            if state is not None:
                state.current = project.id
            try:
                s = crawl_project(session, project)
            finally:
                if state is not None:
                    state.current = None
            total.new_runs += s.new_runs
            total.updated_runs += s.updated_runs
            total.new_entries += s.new_entries
            total.missing_runs += s.missing_runs
    return total


class Crawler(threading.Thread):
    """Background thread that crawls every ``interval`` seconds.

    Example:
        >>> c = Crawler(factory, interval=5.0); c.start()  # doctest: +SKIP
        >>> c.stop()  # doctest: +SKIP
    """

    def __init__(
        self,
        factory: sessionmaker[Session],
        interval: float = 5.0,
        state: CrawlState | None = None,
    ) -> None:
        super().__init__(name="kusari-ui-crawler", daemon=True)
        self.factory = factory
        self.interval = interval
        self.state = state if state is not None else CrawlState()
        self._stop_event = threading.Event()

    def start(self) -> None:
        """Start crawling; the state says so before the thread runs."""
        self.state.running = True
        self.state.first_pass_done = False
        super().start()

    def run(self) -> None:
        """Crawl until :meth:`stop` is called."""
        try:
            while not self._stop_event.is_set():
                t0 = time.monotonic()
                try:
                    crawl_all(self.factory, self.state)
                except Exception:  # keep serving whatever happens on disk
                    logger.exception("crawl failed")
                self.state.first_pass_done = True
                self._stop_event.wait(max(0.1, self.interval - (time.monotonic() - t0)))
        finally:
            self.state.running = False

    def stop(self, timeout: float | None = 10.0) -> None:
        """Ask the thread to finish and wait for it."""
        self._stop_event.set()
        self.join(timeout)
