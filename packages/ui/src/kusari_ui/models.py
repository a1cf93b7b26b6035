"""SQLAlchemy models: projects, results (runs), packed log chunks, series caches.

Log entries are stored in chunks (one row per block of consecutive entries,
packed as a JSON array) so that ingesting 100,000 entries is a few hundred
inserts, not 100,000. Per-run last values and per-metric downsampled series
are precomputed at ingest time so list and chart requests never touch the
raw entries.
"""

from __future__ import annotations

import datetime as _dt
import json
import zlib
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> _dt.datetime:
    """Current UTC time as a naive datetime (portable across backends)."""
    return _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    """Declarative base of every kusari-ui table."""


class Project(Base):
    """A registered folder that holds result folders (or a virtual project).

    ``path`` is None for projects created by :mod:`kusari_ui.client`, whose
    runs are logged over HTTP and have no folder.
    """

    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    path: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    crawled_at: Mapped[_dt.datetime | None] = mapped_column(DateTime, nullable=True)

    results: Mapped[list[Result]] = relationship(
        back_populates="project", cascade="all, delete-orphan", passive_deletes=True
    )


class Result(Base):
    """One training run: a result folder, or a run logged through the client."""

    __tablename__ = "results"
    __table_args__ = (UniqueConstraint("project_id", "path_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    # Folder relative to the project root ("." for the root itself); for
    # client runs, the run name prefixed with "api:" so it never names a path.
    path_name: Mapped[str] = mapped_column(String(1024))
    name: Mapped[str] = mapped_column(String(1024))
    source: Mapped[str] = mapped_column(String(16), default="folder")
    status: Mapped[str] = mapped_column(String(32), default="unknown")
    args_json: Mapped[str] = mapped_column(Text, default="{}")
    last_values_json: Mapped[str] = mapped_column(Text, default="{}")
    n_entries: Mapped[int] = mapped_column(Integer, default=0)
    # Incremental log reader state: file identity and the byte offset just
    # after the last complete entry, plus a digest of the bytes before it.
    log_offset: Mapped[int] = mapped_column(BigInteger, default=0)
    log_size: Mapped[int] = mapped_column(BigInteger, default=0)
    log_mtime_ns: Mapped[int] = mapped_column(BigInteger, default=0)
    log_inode: Mapped[int] = mapped_column(BigInteger, default=0)
    log_digest: Mapped[str] = mapped_column(String(64), default="")
    args_mtime_ns: Mapped[int] = mapped_column(BigInteger, default=0)
    # When the log last grew (the log's mtime); a command or status file
    # written into the folder is not activity of the run.
    last_activity: Mapped[float] = mapped_column(Float, default=0.0)
    # The job's own status file as last read (state, heartbeat, error...).
    status_json: Mapped[str] = mapped_column(Text, default="{}")
    # Smoothed seconds between log writes: how long a silent log may still
    # belong to a live run (see kusari_ui.status).
    log_interval: Mapped[float] = mapped_column(Float, default=0.0)
    # Problems met reading the run's files (undecodable bytes, a FIFO named
    # log, oversized args...), shown on the run: see kusari_ui.crawler.
    warnings_json: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[_dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[_dt.datetime] = mapped_column(
        DateTime, default=utcnow, onupdate=utcnow
    )

    project: Mapped[Project] = relationship(back_populates="results")


def pack_entries(entries: list[dict[str, Any]]) -> bytes:
    """Pack log entries for a :class:`LogChunk` (zlib-compressed JSON).

    Metric names repeat in every entry, so compression shrinks a chunk by
    about an order of magnitude for little CPU.

    Example:
        >>> unpack_entries(pack_entries([{"epoch": 1}]))
        [{'epoch': 1}]
    """
    text = json.dumps(entries, separators=(",", ":"), allow_nan=False)
    return zlib.compress(text.encode("utf-8"), 1)


def unpack_entries(blob: bytes) -> list[dict[str, Any]]:
    """Inverse of :func:`pack_entries`."""
    data: list[dict[str, Any]] = json.loads(zlib.decompress(blob))
    return data


class LogChunk(Base):
    """A block of consecutive log entries of one run (see pack_entries)."""

    __tablename__ = "log_chunks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(
        ForeignKey("results.id", ondelete="CASCADE"), index=True
    )
    start: Mapped[int] = mapped_column(Integer)
    count: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class SeriesCache(Base):
    """Min/max-bucket downsampling state of one metric of one run."""

    __tablename__ = "series_cache"
    __table_args__ = (UniqueConstraint("result_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    result_id: Mapped[int] = mapped_column(
        ForeignKey("results.id", ondelete="CASCADE"), index=True
    )
    key: Mapped[str] = mapped_column(String(512))
    data: Mapped[str] = mapped_column(Text)
    # The downsampled points as ready-to-send JSON, so a chart request is
    # string concatenation, not parsing.
    points: Mapped[str] = mapped_column(Text, default="[]")
