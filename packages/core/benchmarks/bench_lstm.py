"""PTB-style LSTM language model train step: kusari vs PyTorch (CPU).

embed (vocabulary 10000) -> LSTM(650) -> LSTM(650) -> linear(10000) ->
softmax cross entropy, batch 20, 35 time steps, then backward and a plain SGD
update. Four variants run interleaved in the same process:

* ``kusari L.LSTM loop``: two stateful ``L.LSTM`` links called per step;
* ``kusari L.NStepLSTM``: one two-layer ``L.NStepLSTM`` call on the 20
  sequences;
* ``torch LSTMCell loop``: two ``nn.LSTMCell`` called per step;
* ``torch nn.LSTM``: one fused two-layer ``nn.LSTM``.

The torch rows are skipped when torch is not importable. ``--threads`` sets
torch's thread count; NumPy's BLAS reads its own at import, so for a
like-for-like run set ``OPENBLAS_NUM_THREADS`` to the same number.

Run: ``python bench_lstm.py [--repeat N] [--units 650] [--threads 2]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

VOCAB = 10000
BATCH = 20
STEPS = 35
LR = 0.1


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, VOCAB, (BATCH, STEPS + 1))
    return ids[:, :-1].astype(np.int32), ids[:, 1:].astype(np.int32)


def _best_of(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# -- kusari -------------------------------------------------------------------
def _kusari_embed(units: int) -> tuple[Any, Callable[[Any, Any], Any]]:
    """An EmbedID link when it exists, else a gather on a Parameter."""
    import kusari
    import kusari.functions as F
    import kusari.links as L

    if hasattr(L, "EmbedID"):
        embed = L.EmbedID(VOCAB, units)
        return embed, lambda link, ids: link(ids)
    holder = kusari.Link()
    with holder.init_scope():
        rng = np.random.default_rng(1)
        holder.W = kusari.Parameter(
            rng.standard_normal((VOCAB, units)).astype(np.float32)
        )
    return holder, lambda link, ids: F.get_item(link.W, ids)


def _kusari_separate(x: Any, axis: int) -> list[Any]:
    import kusari.functions as F

    if hasattr(F, "separate"):
        return list(F.separate(x, axis=axis))
    index: list[Any] = [slice(None)] * x.ndim
    out = []
    for k in range(x.shape[axis]):
        index[axis] = k
        out.append(x[tuple(index)])
    return out


def _kusari_concat(xs: list[Any], axis: int = 0) -> Any:
    import kusari.functions as F

    if hasattr(F, "concat"):
        return F.concat(xs, axis=axis)
    from kusari.functions.rnn import _ops

    return _ops.concat(xs, axis)


def kusari_lstm_loop(units: int) -> Callable[[], float]:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    import kusari.optimizers as O

    embed, lookup = _kusari_embed(units)
    model: Any = kusari.Chain()
    with model.init_scope():
        model.embed = embed
        model.l1 = L.LSTM(units, units)
        model.l2 = L.LSTM(units, units)
        model.out = L.Linear(units, VOCAB)
    opt = O.SGD(lr=LR)
    opt.setup(model)
    xs, ts = _data()
    t_flat = ts.T.reshape(-1)  # time-major, like the stacked outputs

    def step() -> float:
        model.l1.reset_state()
        model.l2.reset_state()
        hs = []
        # one lookup for all steps, then per-step slices (as the torch model does)
        for e_t in _kusari_separate(lookup(model.embed, xs), 1):
            hs.append(model.l2(model.l1(e_t)))
        y = model.out(_kusari_concat(hs, 0))
        loss = F.softmax_cross_entropy(y, t_flat)
        model.cleargrads()
        loss.backward()
        opt.update()
        return float(loss.array)

    return step


def kusari_nstep(units: int) -> Callable[[], float]:
    import kusari
    import kusari.functions as F
    import kusari.links as L
    import kusari.optimizers as O

    embed, lookup = _kusari_embed(units)
    model: Any = kusari.Chain()
    with model.init_scope():
        model.embed = embed
        model.rnn = L.NStepLSTM(2, units, units, 0.0)
        model.out = L.Linear(units, VOCAB)
    opt = O.SGD(lr=LR)
    opt.setup(model)
    xs, ts = _data()
    t_flat = ts.reshape(-1)  # batch-major, like the concatenated sequences

    def step() -> float:
        e = lookup(model.embed, xs)  # (BATCH, STEPS, units)
        seqs = _kusari_separate(e, 0)
        _, _, ys = model.rnn(None, None, seqs)
        y = model.out(_kusari_concat(ys, 0))
        loss = F.softmax_cross_entropy(y, t_flat)
        model.cleargrads()
        loss.backward()
        opt.update()
        return float(loss.array)

    return step


# -- torch ----------------------------------------------------------------------
def torch_steps(units: int) -> dict[str, Callable[[], float]]:
    try:
        import torch
    except ImportError:
        return {}
    nn = torch.nn
    xs, ts = _data()
    x = torch.from_numpy(xs.astype(np.int64))
    t = torch.from_numpy(ts.astype(np.int64))

    class CellLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, units)
            self.l1 = nn.LSTMCell(units, units)
            self.l2 = nn.LSTMCell(units, units)
            self.out = nn.Linear(units, VOCAB)

        def forward(self, x: Any) -> Any:
            e = self.embed(x)
            s1 = s2 = None
            hs = []
            for k in range(STEPS):
                s1 = self.l1(e[:, k], s1)
                s2 = self.l2(s1[0], s2)
                hs.append(s2[0])
            return self.out(torch.stack(hs, 1))

    class FusedLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(VOCAB, units)
            self.rnn = nn.LSTM(units, units, num_layers=2, batch_first=True)
            self.out = nn.Linear(units, VOCAB)

        def forward(self, x: Any) -> Any:
            return self.out(self.rnn(self.embed(x))[0])

    def make(model: Any) -> Callable[[], float]:
        opt = torch.optim.SGD(model.parameters(), lr=LR)

        def step() -> float:
            y = model(x)
            loss = nn.functional.cross_entropy(y.reshape(-1, VOCAB), t.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            return float(loss.item())

        return step

    return {"torch LSTMCell loop": make(CellLM()), "torch nn.LSTM": make(FusedLM())}


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--units", type=int, default=650)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    steps: dict[str, Callable[[], float]] = {
        "kusari L.LSTM loop": kusari_lstm_loop(args.units),
        "kusari L.NStepLSTM": kusari_nstep(args.units),
    }
    steps.update(torch_steps(args.units))
    for step in steps.values():
        step()  # warm up (lazy allocations, BLAS threads)
    best = {name: float("inf") for name in steps}
    # Interleave the variants so that background load hits all alike.
    for _ in range(args.repeat):
        for name, step in steps.items():
            best[name] = min(best[name], _best_of(step, 1))
    print(
        f"PTB LSTM LM train step (units {args.units}, batch {BATCH}, {STEPS} steps, "
        f"vocab {VOCAB}), best of {args.repeat}, seconds:"
    )
    ref = best.get("torch LSTMCell loop")
    for name, sec in best.items():
        ratio = f"  {sec / ref:5.2f}x torch LSTMCell loop" if ref else ""
        print(f"  {name:<22} {sec:7.3f}{ratio}")
    if "torch nn.LSTM" in best:
        print(
            f"  kusari L.NStepLSTM / torch nn.LSTM: "
            f"{best['kusari L.NStepLSTM'] / best['torch nn.LSTM']:.2f}x"
        )
    return best


if __name__ == "__main__":
    main()
