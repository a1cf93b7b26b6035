"""CommandsExtension against a trainer following Chainer v7's protocol.

A stand-in trainer is used so this runs without kusari; the end-to-end test
with kusari's real Trainer is in test_ui_extensions_kusari.py.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from ui_testing import write_log

from kusari_ui import commands as cmd_files
from kusari_ui.extensions import CommandsExtension


class Hyper:
    def __init__(self, **kw: float) -> None:
        self.__dict__.update(kw)


class Optimizer:
    def __init__(self) -> None:
        self.hyperparam = Hyper(lr=0.1, momentum=0.9)

    @property
    def lr(self) -> float:
        return float(self.hyperparam.lr)


class Updater:
    def __init__(self) -> None:
        self.iteration = 0
        self.epoch = 0
        self.opt = Optimizer()

    def get_optimizer(self, name: str) -> Optimizer:
        if name != "main":
            raise KeyError(name)
        return self.opt


class Trainer:
    """Mimics chainer.training.Trainer.run's order of calls."""

    def __init__(self, out: Path, stop_at: int, delay: float = 0.0) -> None:
        self.out = str(out)
        self.updater = Updater()
        self.stop_trigger = lambda t: t.updater.iteration >= stop_at
        self.extensions: list[Any] = []
        self.delay = delay
        self.log: list[dict[str, Any]] = []

    def extend(self, ext: Any) -> None:
        self.extensions.append(ext)

    def run(self) -> None:
        for ext in self.extensions:
            if hasattr(ext, "initialize"):
                ext.initialize(self)
        stop_trigger = self.stop_trigger
        try:
            while not stop_trigger(self):
                self.updater.iteration += 1
                self.updater.epoch = self.updater.iteration // 10
                self.log.append(
                    {
                        "iteration": self.updater.iteration,
                        "epoch": self.updater.epoch,
                        "main/loss": 1.0 / self.updater.iteration,
                        "lr": self.updater.opt.lr,
                    }
                )
                write_log(Path(self.out) / "log", self.log)
                for ext in self.extensions:
                    ext(self)
                time.sleep(self.delay)
        finally:
            for ext in self.extensions:
                ext.finalize()


def test_protocol_attributes() -> None:
    ext = CommandsExtension()
    assert ext.trigger == (1, "iteration") and ext.priority == 200
    assert ext.default_name == "kusari_ui_commands"


def test_commands_executed_once_with_responses(tmp_path: Path) -> None:
    trainer = Trainer(tmp_path, stop_at=1000)
    shots: list[int] = []

    def factory():
        def snap(t: Trainer) -> None:
            shots.append(t.updater.iteration)
            (Path(t.out) / f"snapshot_iter_{t.updater.iteration}").write_text("w")

        return snap

    ext = CommandsExtension(snapshot_factory=factory)
    trainer.extend(ext)
    cmd_files.request_command(
        tmp_path, "adjust_hyperparams", {"hyperparams": {"lr": 0.01, "momentum": 0.5}}
    )
    cmd_files.request_command(
        tmp_path, "adjust_hyperparams", {"hyperparams": {"nope": 1.0}}
    )
    cmd_files.request_command(tmp_path, "take_snapshot")
    cmd_files.request_command(tmp_path, "stop")
    trainer.run()
    assert trainer.updater.iteration == 1  # stopped after the first iteration
    assert trainer.updater.opt.lr == 0.01
    assert trainer.updater.opt.hyperparam.momentum == 0.5
    assert shots == [1]
    hist = cmd_files.history(tmp_path)
    assert [h["status"] for h in hist] == ["done", "error", "done", "done"]
    assert hist[0]["response"] == {
        "lr": {"old": 0.1, "new": 0.01},
        "momentum": {"old": 0.9, "new": 0.5},
    }
    error = hist[1]["response"]["error"]
    assert "no hyperparameter 'nope'; it has lr, momentum" in error
    assert hist[2]["response"] == {"files": ["snapshot_iter_1"]}
    assert hist[3]["iteration"] == 1
    status = cmd_files.read_status(tmp_path)
    assert status is not None and status["state"] == "stopped"


class IntervalTrigger:
    """Like chainer.training.triggers.IntervalTrigger for iterations."""

    def __init__(self, period: int) -> None:
        self.period = period

    def __call__(self, trainer: Any) -> bool:
        return bool(trainer.updater.iteration >= self.period)

    def get_training_length(self) -> tuple[int, str]:
        return (self.period, "iteration")


class EarlyCaptureTrainer(Trainer):
    """A Trainer that reads stop_trigger *before* initialising extensions."""

    def run(self) -> None:
        stop_trigger = self.stop_trigger
        for ext in self.extensions:
            ext.initialize(self)
        try:
            while not stop_trigger(self):
                self.updater.iteration += 1
                for ext in self.extensions:
                    ext(self)
        finally:
            for ext in self.extensions:
                ext.finalize()


def test_stop_works_when_trainer_captured_the_trigger_early(tmp_path: Path) -> None:
    trainer = EarlyCaptureTrainer(tmp_path, stop_at=0)
    trigger = IntervalTrigger(1000)
    trainer.stop_trigger = trigger  # type: ignore[assignment]
    trainer.extend(CommandsExtension())
    cmd_files.request_command(tmp_path, "stop")
    trainer.run()
    assert trainer.updater.iteration == 1
    assert isinstance(trigger, IntervalTrigger) and trigger.period == 1000
    assert trigger.get_training_length() == (1000, "iteration")


def test_finished_status_and_no_commands_file(tmp_path: Path) -> None:
    trainer = Trainer(tmp_path, stop_at=5)
    trainer.extend(CommandsExtension())
    trainer.run()
    assert trainer.updater.iteration == 5
    assert cmd_files.read_status(tmp_path)["state"] == "finished"  # type: ignore[index]


class FailingTrainer(Trainer):
    """Raises at iteration 3, calling on_error then finalize like Chainer's."""

    def run(self) -> None:
        for ext in self.extensions:
            ext.initialize(self)
        try:
            while True:
                self.updater.iteration += 1
                if self.updater.iteration == 3:
                    raise FloatingPointError("loss is nan")
                for ext in self.extensions:
                    ext(self)
        except Exception as e:
            for ext in self.extensions:
                ext.on_error(self, e, None)
            raise
        finally:
            for ext in self.extensions:
                ext.finalize()


def test_a_crashed_run_is_failed_with_its_error(tmp_path: Path) -> None:
    trainer = FailingTrainer(tmp_path, stop_at=100)
    trainer.extend(CommandsExtension())
    with pytest.raises(FloatingPointError):
        trainer.run()
    status = cmd_files.read_status(tmp_path)
    assert status is not None and status["state"] == "failed"
    assert status["error"] == "FloatingPointError: loss is nan"
    assert status["iteration"] == 3


@pytest.mark.parametrize(
    "hyperparams, message",
    [
        ({"target": 0}, "no hyperparameter 'target'"),
        ({"__class__": 1}, "no hyperparameter '__class__'"),
        ({"lr": "0.1"}, "must be a finite number"),
        ({"lr": True}, "must be a finite number"),
        ({"lr": 1e300}, "must be a finite number"),
        ({"lr": 0.5, "hyperparam": 1}, "no hyperparameter 'hyperparam'"),
    ],
)
def test_adjust_refuses_anything_but_declared_hyperparameters(
    tmp_path: Path, hyperparams: dict[str, Any], message: str
) -> None:
    trainer = Trainer(tmp_path, stop_at=2)
    trainer.extend(CommandsExtension())
    cmd_files.request_command(
        tmp_path, "adjust_hyperparams", {"hyperparams": hyperparams}
    )
    trainer.run()
    (entry,) = cmd_files.history(tmp_path)
    assert entry["status"] == "error" and message in entry["response"]["error"]
    # Nothing applied, not even the valid part of a mixed command.
    assert trainer.updater.opt.hyperparam.lr == 0.1
    assert isinstance(trainer.updater.opt, Optimizer)


def test_stop_trigger_delegates_attributes(tmp_path: Path) -> None:
    class Interval:
        def __call__(self, t: Any) -> bool:
            return False

        def get_training_length(self) -> tuple[int, str]:
            return (100, "iteration")

    trainer = Trainer(tmp_path, stop_at=1)
    trainer.stop_trigger = Interval()  # type: ignore[assignment]
    ext = CommandsExtension()
    ext.initialize(trainer)
    assert trainer.stop_trigger.get_training_length() == (100, "iteration")


def _http(url: str, body: Any | None = None) -> Any:
    req = urllib.request.Request(
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def test_ui_steers_a_running_job_over_http(live_server, project_dir: Path) -> None:
    """The page's API sends adjust_hyperparams then stop; the job obeys."""
    run = project_dir / "job"
    run.mkdir()
    trainer = Trainer(run, stop_at=100_000, delay=0.01)
    trainer.extend(CommandsExtension())
    th = threading.Thread(target=trainer.run, daemon=True)
    th.start()
    api = live_server.url + "/api/v1"
    pid = _http(api + "/projects", {"path": str(project_dir)})["project"]["id"]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        _http(f"{api}/projects/{pid}/crawl", {})
        rows = _http(f"{api}/projects/{pid}/results")["results"]
        if rows and rows[0]["nEntries"] > 3:
            break
        time.sleep(0.05)
    rid = rows[0]["id"]
    base = f"{api}/projects/{pid}/results/{rid}"
    _http(
        base + "/commands",
        {"name": "adjust_hyperparams", "body": {"hyperparams": {"lr": 0.005}}},
    )
    while time.monotonic() < deadline and trainer.updater.opt.lr != 0.005:
        time.sleep(0.02)
    _http(base + "/commands", {"name": "stop"})
    th.join(20)
    assert not th.is_alive(), "the job did not stop"
    assert trainer.updater.opt.lr == 0.005
    hist = _http(base + "/commands")["commands"]
    assert [h["status"] for h in hist] == ["done", "done"]
    _http(f"{api}/projects/{pid}/crawl", {})
    row = _http(f"{api}/projects/{pid}/results")["results"][0]
    assert row["status"] == "stopped"
    assert row["lastValues"]["lr"] == 0.005


@pytest.mark.parametrize("bad", ["[", "{}", "[1, 2]", '[{"id": 5}]'])
def test_junk_commands_file_does_not_break_training(tmp_path: Path, bad: str) -> None:
    (tmp_path / cmd_files.COMMANDS_FILE).write_text(bad)
    trainer = Trainer(tmp_path, stop_at=3)
    trainer.extend(CommandsExtension())
    trainer.run()
    assert trainer.updater.iteration == 3


def test_protocol_files_get_the_umask_mode(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        cmd_files.request_command(tmp_path, "stop")
        mode = (tmp_path / cmd_files.COMMANDS_FILE).stat().st_mode & 0o777
        assert mode == 0o644
    finally:
        os.umask(old)


class RequestStopTrainer(Trainer):
    """A Trainer with kusari's public ``request_stop``: the extension uses it
    and leaves the stop trigger alone."""

    def __init__(self, out: Path, stop_at: int) -> None:
        super().__init__(out, stop_at)
        self.stop_calls = 0
        self._stop = False

    def request_stop(self) -> None:
        self.stop_calls += 1
        self._stop = True

    def run(self) -> None:
        for ext in self.extensions:
            ext.initialize(self)
        trigger = self.stop_trigger
        try:
            while not (self._stop or trigger(self)):
                self.updater.iteration += 1
                for ext in self.extensions:
                    ext(self)
        finally:
            for ext in self.extensions:
                ext.finalize()


def test_stop_uses_the_trainers_request_stop(tmp_path: Path) -> None:
    trainer = RequestStopTrainer(tmp_path, stop_at=1000)
    original_trigger = trainer.stop_trigger
    trainer.extend(CommandsExtension())
    cmd_files.request_command(tmp_path, "stop")
    trainer.run()
    assert trainer.updater.iteration == 1 and trainer.stop_calls == 1
    assert trainer.stop_trigger is original_trigger  # not wrapped
    assert cmd_files.read_status(tmp_path)["state"] == "stopped"  # type: ignore[index]


class ThreadComm:
    """Two 'ranks' as threads: rank 0's bcast_obj hands its object to rank 1."""

    def __init__(self, rank: int, channel: Any) -> None:
        self.rank = rank
        self.channel = channel

    def bcast_obj(self, obj: Any, root: int = 0) -> Any:
        if self.rank == root:
            self.channel.put(obj)
            return obj
        return self.channel.get(timeout=10)


def test_commands_reach_every_rank_and_only_rank_0_writes(tmp_path: Path) -> None:
    import queue

    channel: Any = queue.Queue()
    rank0 = Trainer(tmp_path, stop_at=1000)
    (tmp_path / "rank1").mkdir()
    rank1 = Trainer(tmp_path / "rank1", stop_at=1000)  # files would land here
    rank0.extend(CommandsExtension(comm=ThreadComm(0, channel)))
    rank1.extend(CommandsExtension(comm=ThreadComm(1, channel)))
    cmd_files.request_command(
        tmp_path, "adjust_hyperparams", {"hyperparams": {"lr": 0.02}}
    )
    cmd_files.request_command(tmp_path, "stop")
    worker = threading.Thread(target=rank1.run)
    worker.start()
    rank0.run()
    worker.join(10)
    assert not worker.is_alive()
    for trainer in (rank0, rank1):
        assert trainer.updater.iteration == 1  # both stopped at once
        assert trainer.updater.opt.hyperparam.lr == 0.02
    assert [h["status"] for h in cmd_files.history(tmp_path)] == ["done", "done"]
    assert cmd_files.read_status(tmp_path)["state"] == "stopped"  # type: ignore[index]
    # Rank 1 wrote no protocol file (its trainer only wrote its own log).
    written = {p.name for p in (tmp_path / "rank1").iterdir()}
    assert written == {"log"}
