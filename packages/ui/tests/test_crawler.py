"""Run discovery and incremental ingest."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

from flask import Flask
from sqlalchemy import func, select
from ui_testing import make_entries, write_log

from kusari_ui.crawler import Crawler, CrawlStats, crawl_all, find_runs
from kusari_ui.models import LogChunk, Project, Result


def _project(app: Flask, path: Path) -> int:
    with app.extensions["kusari_ui"]["factory"]() as s:
        p = Project(name="p", path=str(path))
        s.add(p)
        s.commit()
        return p.id


def _results(app: Flask) -> dict[str, Result]:
    with app.extensions["kusari_ui"]["factory"]() as s:
        return {r.path_name: r for r in s.scalars(select(Result))}


def test_find_runs_nested_and_skips_hidden(tmp_path: Path) -> None:
    for rel in ("a", "b/c", ".hidden/x", "d/e/f/g/h/too_deep"):
        (tmp_path / rel).mkdir(parents=True)
        (tmp_path / rel / "log").write_text("[]")
    (tmp_path / "a" / "snapshots").mkdir()
    (tmp_path / "a" / "snapshots" / "log").write_text("[]")  # inside a run: not a run
    assert find_runs(str(tmp_path)) == ["a", "b/c"]


def test_find_runs_does_not_follow_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "log").write_text("[]")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "link").symlink_to(outside)
    assert find_runs(str(proj)) == []


def test_ingest_incrementally(app: Flask, make_run, project_dir: Path) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    run = make_run("r1", n=1500)
    make_run("r2", n=10, args={"lr": 0.5, "optimizer": "adam"})
    _project(app, project_dir)
    stats = crawl_all(factory)
    assert stats == CrawlStats(new_runs=2, updated_runs=2, new_entries=1510)
    write_log(run / "log", make_entries(1700))
    stats = crawl_all(factory)
    assert stats.new_entries == 200 and stats.updated_runs == 1
    assert crawl_all(factory).new_entries == 0
    res = _results(app)
    r1 = res["r1"]
    assert r1.n_entries == 1700
    last = json.loads(r1.last_values_json)
    assert last["iteration"] == 1700 and "main/loss" in last
    assert json.loads(res["r2"].args_json) == {"lr": 0.5, "optimizer": "adam"}
    with factory() as s:
        chunks = s.scalars(
            select(LogChunk).where(LogChunk.result_id == r1.id).order_by(LogChunk.start)
        ).all()
        # 1500 -> chunks of 1000 + 500; +200 topped up into the second chunk.
        assert [(c.start, c.count) for c in chunks] == [(0, 1000), (1000, 700)]


def test_missing_run_is_marked_and_comes_back(
    app: Flask, make_run, project_dir: Path
) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    run = make_run("gone", n=5)
    _project(app, project_dir)
    crawl_all(factory)
    backup = project_dir.parent / "backup"
    shutil.move(run, backup)
    assert crawl_all(factory).missing_runs == 1
    assert _results(app)["gone"].status == "missing"
    shutil.move(backup, run)
    crawl_all(factory)
    assert _results(app)["gone"].status == "unknown"
    assert _results(app)["gone"].n_entries == 5


def test_project_folder_vanishing_keeps_serving(app: Flask, tmp_path: Path) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    _project(app, tmp_path / "never-existed")
    assert crawl_all(factory) == CrawlStats()


def test_bad_files_are_warned_and_skipped(
    app: Flask, make_run, project_dir: Path, caplog
) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    make_run("good", n=3)
    bad = project_dir / "binary"
    bad.mkdir()
    (bad / "log").write_bytes(bytes(range(256)) * 10)
    (bad / "args").write_text("{not json")
    listy = project_dir / "listargs"
    listy.mkdir()
    (listy / "args").write_text("[1, 2]")
    _project(app, project_dir)
    with caplog.at_level(logging.WARNING):
        crawl_all(factory)
    res = _results(app)
    assert res["good"].n_entries == 3
    assert res["binary"].n_entries == 0 and res["binary"].args_json == "{}"
    assert res["listargs"].args_json == "{}"
    msgs = " ".join(r.getMessage() for r in caplog.records)
    assert "args" in msgs and "UTF-8" in msgs


def test_status_file_sets_status(app: Flask, make_run, project_dir: Path) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    run = make_run("r", n=3)
    (run / "kusari_ui_status.json").write_text('{"state": "running", "heartbeat": 1}')
    _project(app, project_dir)
    crawl_all(factory)
    assert _results(app)["r"].status == "running"


def test_background_crawler_thread(app: Flask, make_run, project_dir: Path) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    make_run("r", n=7)
    _project(app, project_dir)
    crawler = Crawler(factory, interval=0.05)
    crawler.start()
    try:
        import time

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with factory() as s:
                if s.scalar(select(func.sum(Result.n_entries))) == 7:
                    break
            time.sleep(0.05)
    finally:
        crawler.stop()
    assert not crawler.is_alive()
    assert _results(app)["r"].n_entries == 7


def test_very_long_metric_key(app: Flask, project_dir: Path) -> None:
    factory = app.extensions["kusari_ui"]["factory"]
    run = project_dir / "r"
    run.mkdir()
    write_log(run / "log", [{"iteration": 1, "k" * 600: 1.0}])
    _project(app, project_dir)
    assert crawl_all(factory).new_entries == 1
    assert crawl_all(factory).new_entries == 0
    assert json.loads(_results(app)["r"].last_values_json)["k" * 600] == 1.0
