"""ResNet-50 ``predict()`` on the CPU: kusari-cv vs PyTorch, time and memory.

The kusari side is ChainerCV's inference path: a
:class:`~kusari_cv.links.FeaturePredictor` around
:class:`~kusari_cv.links.ResNet50` (center crop, mean subtraction, test-mode
forward without a graph, softmax) on ``--batch`` RGB images of ``--size``
squared. The PyTorch side is torchvision's ``resnet50`` when torchvision
imports, else a hand-built torch ResNet-50 with the same layers (stride in
the 3x3 convolutions, ceil-mode stem pooling, batch-normalization eps 2e-5),
under ``torch.inference_mode()`` with the same preprocessing. Weights are
random; with the hand-built model the script first copies kusari's weights
into it and prints the largest difference of the two outputs, so both sides
are known to compute the same function.

Each side runs in its own subprocess (``--worker``), so allocator caches do
not mix: it builds the model, runs one warm-up prediction and
``--repeat`` timed ones. Peak memory is the growth of the process's peak
resident set (``VmHWM``, reset through ``/proc/self/clear_refs`` once the
model and the input exist) over all those predictions: activations and
workspaces, not the weights. The sides alternate for ``--rounds`` rounds
and the best time of each is reported.

Threads: BLAS and torch use ``OMP_NUM_THREADS`` (default 1, set before NumPy
is imported).

Run: ``python bench_models.py [--batch 8] [--size 224] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", os.environ["OMP_NUM_THREADS"])
os.environ.setdefault("MKL_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

import numpy as np

# ---------------------------------------------------------------- memory ---


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False if impossible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# ----------------------------------------------------------------- torch ---


def _hand_built_resnet50(torch: Any, n_class: int) -> Any:
    nn = torch.nn
    eps = 2e-5  # kusari's (and Chainer's) BatchNormalization default

    def conv_bn(cin: int, cout: int, k: int, stride: int, relu: bool) -> Any:
        layers = [
            nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
            nn.BatchNorm2d(cout, eps=eps),
        ]
        if relu:
            layers.append(nn.ReLU(inplace=True))
        return nn.Sequential(*layers)

    class Bottleneck(nn.Module):
        def __init__(self, cin: int, mid: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = conv_bn(cin, mid, 1, 1, True)
            self.conv2 = conv_bn(mid, mid, 3, stride, True)
            self.conv3 = conv_bn(mid, cout, 1, 1, False)
            self.residual = (
                conv_bn(cin, cout, 1, stride, False)
                if stride != 1 or cin != cout
                else None
            )

        def forward(self, x: Any) -> Any:
            h = self.conv3(self.conv2(self.conv1(x)))
            r = x if self.residual is None else self.residual(x)
            return torch.relu(h + r)

    stages = []
    cin = 64
    for n, mid, stride in ((3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)):
        blocks = [Bottleneck(cin, mid, mid * 4, stride)]
        blocks += [Bottleneck(mid * 4, mid, mid * 4, 1) for _ in range(n - 1)]
        stages.append(nn.Sequential(*blocks))
        cin = mid * 4
    return nn.Sequential(
        conv_bn(3, 64, 7, 2, True),
        nn.MaxPool2d(3, 2, ceil_mode=True),  # kusari pools with cover_all
        *stages,
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(2048, n_class),
    )


def _torch_model(torch: Any, hand_built: bool) -> tuple[Any, str]:
    if not hand_built:
        try:
            from torchvision.models import resnet50

            return resnet50(weights=None), "torchvision resnet50"
        except Exception:  # torchvision missing or built for another torch
            pass
    return _hand_built_resnet50(torch, 1000), "hand-built torch ResNet-50"


def _copy_weights(kmodel: Any, tmodel: Any) -> None:
    """kusari ResNet50 -> the hand-built torch model (same order of layers)."""
    import torch

    def conv_bn(src: Any, dst: Any) -> None:
        dst[0].weight.data = torch.from_numpy(src.conv.W.array.copy())
        bn = dst[1]
        bn.weight.data = torch.from_numpy(src.bn.gamma.array.copy())
        bn.bias.data = torch.from_numpy(src.bn.beta.array.copy())
        bn.running_mean.data = torch.from_numpy(src.bn.avg_mean.copy())
        bn.running_var.data = torch.from_numpy(src.bn.avg_var.copy())

    conv_bn(kmodel.conv1, tmodel[0])
    for i, name in enumerate(("res2", "res3", "res4", "res5")):
        kstage, tstage = kmodel[name], tmodel[2 + i]
        for j, bname in enumerate(kstage.layer_names):
            kb, tb = kstage[bname], tstage[j]
            conv_bn(kb.conv1, tb.conv1)
            conv_bn(kb.conv2, tb.conv2)
            conv_bn(kb.conv3, tb.conv3)
            if hasattr(kb, "residual_conv"):
                conv_bn(kb.residual_conv, tb.residual)
    tmodel[-1].weight.data = torch.from_numpy(kmodel.fc6.W.array.copy())
    tmodel[-1].bias.data = torch.from_numpy(kmodel.fc6.b.array.copy())


# ---------------------------------------------------------------- worker ---


def _images(batch: int, size: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [
        rng.uniform(0, 255, (3, size, size)).astype(np.float32) for _ in range(batch)
    ]


def _kusari_predict(size: int) -> Callable[[list[np.ndarray]], Any]:
    from kusari_cv.links import FeaturePredictor, ResNet50

    model = FeaturePredictor(ResNet50(), crop_size=size)
    return model.predict


def _torch_predict(size: int, hand_built: bool) -> tuple[Callable[..., Any], str]:
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    model, name = _torch_model(torch, hand_built)
    model.eval()
    mean = np.array([123.15163084, 115.90288257, 103.0626238], np.float32)
    mean = mean[:, None, None]

    def predict(imgs: list[np.ndarray]) -> Any:
        x = torch.from_numpy(np.stack(imgs) - mean)
        with torch.inference_mode():
            return torch.softmax(model(x), dim=1).numpy()

    return predict, name


def worker(side: str, batch: int, size: int, repeat: int, hand_built: bool) -> None:
    name = "kusari-cv ResNet50 + FeaturePredictor"
    if side == "kusari":
        predict = _kusari_predict(size)
    else:
        predict, name = _torch_predict(size, hand_built)
    imgs = _images(batch, size)
    rss0 = _status_kib("VmRSS")
    exact = _reset_peak()
    predict(imgs)  # warm-up (first-call workspaces count towards the peak)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = predict(imgs)
        times.append(time.perf_counter() - t0)
    peak = _status_kib("VmHWM") - (rss0 if exact else 0)
    assert np.allclose(np.asarray(out).sum(axis=1), 1, atol=1e-3)
    print(
        json.dumps(
            {"name": name, "best": min(times), "peak_mib": peak / 1024, "exact": exact}
        )
    )


# ------------------------------------------------------------------ main ---


def _check_same_function() -> float | None:
    """Max |difference| of the two models' probabilities on the same weights."""
    try:
        import torch
    except ImportError:
        return None
    import kusari
    from kusari_cv.links import ResNet50

    kmodel = ResNet50()
    x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 64, 64)).astype(np.float32)
    with kusari.using_config("train", True):
        kmodel(x)  # non-trivial batch-normalization statistics
    tmodel = _hand_built_resnet50(torch, 1000).eval()
    _copy_weights(kmodel, tmodel)
    with kusari.using_config("train", False), kusari.no_backprop_mode():
        ky = kmodel(x).array
    with torch.inference_mode():
        ty = torch.softmax(tmodel(torch.from_numpy(x)), dim=1).numpy()
    return float(np.abs(ky - ty).max())


def _run_worker(side: str, args: argparse.Namespace) -> dict[str, Any] | None:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--worker",
        side,
        "--batch",
        str(args.batch),
        "--size",
        str(args.size),
        "--repeat",
        str(args.repeat),
    ] + (["--hand-built"] if args.hand_built else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        if side == "torch" and "No module named 'torch'" in proc.stderr:
            return None
        raise RuntimeError(f"{side} worker failed:\n{proc.stderr}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--hand-built", action="store_true", help="skip torchvision even if present"
    )
    parser.add_argument("--worker", choices=("kusari", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.batch, args.size, args.repeat, args.hand_built)
        return

    print(
        f"ResNet-50 predict(), batch {args.batch}, {args.size}x{args.size}, "
        f"numpy {np.__version__}, threads {os.environ['OMP_NUM_THREADS']}"
    )
    diff = _check_same_function()
    if diff is not None:
        print(f"same weights, kusari vs hand-built torch: max |dprob| = {diff:.2e}")
    best: dict[str, dict[str, Any]] = {}
    for _ in range(args.rounds):
        for side in ("kusari", "torch"):
            result = _run_worker(side, args)
            if result is None:
                continue
            prev = best.setdefault(side, result)
            prev["best"] = min(prev["best"], result["best"])
            prev["peak_mib"] = min(prev["peak_mib"], result["peak_mib"])
    print(f"{'':42s} {'time (s)':>9s} {'peak (MiB)':>11s}")
    for side in ("kusari", "torch"):
        if side in best:
            r = best[side]
            print(f"{r['name']:42s} {r['best']:9.3f} {r['peak_mib']:11.0f}")
    if "torch" in best:
        k, t = best["kusari"], best["torch"]
        print(
            f"kusari / torch: time {k['best'] / t['best']:.2f}x, "
            f"peak memory {k['peak_mib'] / max(t['peak_mib'], 1e-9):.2f}x"
        )
    else:
        print("(PyTorch is not importable: kusari only)")


if __name__ == "__main__":
    main()
