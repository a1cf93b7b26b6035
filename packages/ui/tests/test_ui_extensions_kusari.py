"""End to end with kusari's real Trainer: the UI changes lr, snapshots, stops.

Needs kusari itself (packages/core), an optional dependency of kusari-ui.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest

kusari = pytest.importorskip(
    "kusari",
    reason="kusari (packages/core) is not installed: pip install -e packages/core",
)
from kusari import datasets, iterators, links, optimizers, training  # noqa: E402
from kusari_ui.extensions import CommandsExtension  # noqa: E402


def _http(url: str, body: Any | None = None) -> Any:
    req = urllib.request.Request(
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def _trainer(out: Path) -> Any:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    t = (x[:, 0] > 0).astype(np.int32)
    model = links.Classifier(links.Linear(4, 2))
    optimizer = optimizers.SGD(lr=0.1)
    optimizer.setup(model)
    it = iterators.SerialIterator(datasets.TupleDataset(x, t), 8)
    updater = training.updaters.StandardUpdater(it, optimizer)
    trainer = training.Trainer(updater, (100_000, "iteration"), out=str(out))
    trainer.extend(training.extensions.LogReport(trigger=(1, "iteration")))
    # Throttle so the job is still running when the UI's commands arrive.
    trainer.extend(
        lambda _t: time.sleep(0.005), name="throttle", trigger=(1, "iteration")
    )
    trainer.extend(CommandsExtension())
    return trainer


def test_ui_stops_kusari_trainer_and_adjusts_lr(live_server, project_dir: Path):
    run = project_dir / "mlp"
    trainer = _trainer(run)
    errors: list[BaseException] = []

    def target() -> None:
        try:
            trainer.run()
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)

    th = threading.Thread(target=target, daemon=True)
    th.start()
    api = live_server.url + "/api/v1"
    pid = _http(api + "/projects", {"path": str(project_dir)})["project"]["id"]
    deadline = time.monotonic() + 60
    rows: list[Any] = []
    while time.monotonic() < deadline:
        _http(f"{api}/projects/{pid}/crawl", {})
        rows = _http(f"{api}/projects/{pid}/results")["results"]
        if rows and rows[0]["nEntries"] >= 3:
            break
        time.sleep(0.1)
    assert rows and rows[0]["lastValues"].get("main/loss") is not None
    base = f"{api}/projects/{pid}/results/{rows[0]['id']}"
    _http(
        base + "/commands",
        {"name": "adjust_hyperparams", "body": {"hyperparams": {"lr": 0.0123}}},
    )
    optimizer = trainer.updater.get_optimizer("main")
    while time.monotonic() < deadline and optimizer.lr != pytest.approx(0.0123):
        time.sleep(0.02)
    assert optimizer.lr == pytest.approx(0.0123)
    _http(base + "/commands", {"name": "take_snapshot"})
    while time.monotonic() < deadline:
        hist = _http(base + "/commands")["commands"]
        if hist[-1]["status"] != "pending":
            break
        time.sleep(0.05)
    assert hist[-1]["status"] == "done", hist[-1]
    assert any(f.startswith("snapshot") for f in hist[-1]["response"]["files"])
    snaps = _http(base + "/snapshots")["snapshots"]
    assert snaps and snaps[0]["size"] > 0
    _http(base + "/commands", {"name": "stop"})
    th.join(60)
    assert not errors, errors
    assert not th.is_alive(), "the Trainer did not stop"
    assert trainer.updater.iteration < 100_000
    hist = _http(base + "/commands")["commands"]
    assert [h["name"] for h in hist] == ["adjust_hyperparams", "take_snapshot", "stop"]
    assert all(h["status"] == "done" for h in hist)
    assert hist[0]["response"]["lr"]["new"] == pytest.approx(0.0123)
    _http(f"{api}/projects/{pid}/crawl", {})
    assert _http(f"{api}/projects/{pid}/results")["results"][0]["status"] == "stopped"
