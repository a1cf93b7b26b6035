"""Command-line and Trainer boilerplate shared by the examples."""

from __future__ import annotations

import argparse
import os
from typing import Any

import kusari
from kusari import training
from kusari.training import extensions


def parser(description: str, *, epoch: int, batchsize: int) -> argparse.ArgumentParser:
    """The options every example takes."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--batchsize", "-b", type=int, default=batchsize)
    p.add_argument("--epoch", "-e", type=int, default=epoch)
    p.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="'@numpy', '@cupy:0', or an int (-1 for the CPU)",
    )
    p.add_argument("--out", "-o", default="result", help="output directory")
    p.add_argument("--resume", "-r", default="", help="snapshot to resume from")
    p.add_argument(
        "--max-iterations",
        type=int,
        default=0,
        help="stop after this many iterations (smoke tests)",
    )
    return p


def device_of(spec: str) -> Any:
    device = kusari.get_device(int(spec) if spec.lstrip("-").isdigit() else spec)
    device.use()
    return device


def make_trainer(updater: Any, args: argparse.Namespace) -> training.Trainer:
    stop = (
        (args.max_iterations, "iteration")
        if args.max_iterations
        else (args.epoch, "epoch")
    )
    return training.Trainer(updater, stop, out=args.out)


def add_reporting(
    trainer: training.Trainer,
    keys: list[str],
    *,
    snapshot_trigger: Any = (1, "epoch"),
    progress: bool = True,
) -> None:
    """LogReport, PrintReport, snapshots (autoloaded) and a progress bar."""
    trainer.extend(extensions.LogReport(trigger=snapshot_trigger))
    trainer.extend(
        extensions.PrintReport(["epoch", "iteration", *keys, "elapsed_time"])
    )
    trainer.extend(extensions.snapshot(n_retains=1), trigger=snapshot_trigger)
    if progress:
        trainer.extend(extensions.ProgressBar(update_interval=10))


def resume(trainer: training.Trainer, path: str) -> None:
    if path:
        kusari.serializers.load_npz(path, trainer)


def report_done(args: argparse.Namespace) -> None:
    print(f"Results are in {os.path.abspath(args.out)}")
