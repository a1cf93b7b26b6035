#!/usr/bin/env python
"""Sequence-to-sequence translation with stacked LSTMs (Sutskever et al.).

An NStepLSTM encoder reads the source sentence; its final states start an
NStepLSTM decoder that is trained with teacher forcing and translates by
greedy decoding. Sentences of any length are batched without padding.

    python seq2seq.py --source train.src --target train.tgt --epoch 10

Without data files it learns a generated task (reverse the sentence and map
each word through a fixed dictionary) and reports exact-match accuracy.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import _common
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training
from kusari.training import extensions

EOS = 0
UNK = 1


def sequence_embed(embed, xs):
    """Embed a list of variable-length id arrays with one EmbedID call."""
    lengths = [len(x) for x in xs]
    sections = np.cumsum(lengths[:-1])
    ex = embed(F.concat(xs, axis=0))
    return F.split_axis(ex, sections, 0, force_tuple=True)


class Seq2seq(kusari.Chain):
    def __init__(
        self, n_layers: int, n_source: int, n_target: int, n_units: int
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.embed_x = L.EmbedID(n_source, n_units)
            self.embed_y = L.EmbedID(n_target, n_units)
            self.encoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.decoder = L.NStepLSTM(n_layers, n_units, n_units, 0.1)
            self.W = L.Linear(n_units, n_target)
        self.n_layers = n_layers
        self.n_units = n_units

    def forward(self, xs, ys):
        xs = [x[::-1] for x in xs]  # reversed input helps the encoder
        eos = self.xp.array([EOS], np.int32)
        ys_in = [F.concat([eos, y], axis=0) for y in ys]
        ys_out = [F.concat([y, eos], axis=0) for y in ys]
        exs = sequence_embed(self.embed_x, xs)
        eys = sequence_embed(self.embed_y, ys_in)
        batch = len(xs)
        hx, cx, _ = self.encoder(None, None, exs)
        _, _, os_ = self.decoder(hx, cx, eys)
        concat_os = F.concat(os_, axis=0)
        concat_ys_out = F.concat(ys_out, axis=0)
        loss = (
            F.sum(
                F.softmax_cross_entropy(self.W(concat_os), concat_ys_out, reduce="no")
            )
            / batch
        )
        kusari.report({"loss": loss}, self)
        n_words = concat_ys_out.shape[0]
        kusari.report(
            {"perp": float(np.exp(float(loss.array) * batch / n_words))}, self
        )
        return loss

    def translate(self, xs, max_length: int = 50):
        batch = len(xs)
        with kusari.no_backprop_mode(), kusari.using_config("train", False):
            xs = [x[::-1] for x in xs]
            exs = sequence_embed(self.embed_x, xs)
            h, c, _ = self.encoder(None, None, exs)
            ys = self.xp.full(batch, EOS, np.int32)
            result = []
            for _ in range(max_length):
                eys = F.split_axis(self.embed_y(ys), batch, 0, force_tuple=True)
                h, c, ys_out = self.decoder(h, c, eys)
                wy = self.W(F.concat(ys_out, axis=0))
                ys = self.xp.argmax(wy.array, axis=1).astype(np.int32)
                result.append(ys)
        result = kusari.backends.cuda.to_cpu(self.xp.stack(result).T)
        outs = []
        for y in result:
            idx = np.argwhere(y == EOS)
            outs.append(y[: idx[0, 0]] if len(idx) else y)
        return outs


@kusari.dataset.converter()  # receives a Device, not Chainer's int
def convert(batch, device):
    return {
        "xs": [device.send(x) for x, _ in batch],
        "ys": [device.send(y) for _, y in batch],
    }


def load_pairs(source: str, target: str):
    def read(path):
        with open(path, encoding="utf-8") as f:
            return [line.split() for line in f]

    src, tgt = read(source), read(target)
    vocab_s = {"<eos>": EOS, "<unk>": UNK}
    vocab_t = {"<eos>": EOS, "<unk>": UNK}
    for words in src:
        for w in words:
            vocab_s.setdefault(w, len(vocab_s))
    for words in tgt:
        for w in words:
            vocab_t.setdefault(w, len(vocab_t))
    pairs = [
        (
            np.array([vocab_s[w] for w in s], np.int32),
            np.array([vocab_t[w] for w in t], np.int32),
        )
        for s, t in zip(src, tgt)
    ]
    return pairs, len(vocab_s), len(vocab_t)


def main(argv=None) -> float:
    p = _common.parser(__doc__, epoch=10, batchsize=64)
    p.add_argument("--source", default="")
    p.add_argument("--target", default="")
    p.add_argument("--unit", "-u", type=int, default=256)
    p.add_argument("--layer", "-l", type=int, default=2)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    if args.source and args.target:
        pairs, n_source, n_target = load_pairs(args.source, args.target)
    else:
        from _offline import synthetic_translation

        print(
            "No --source/--target given: learning a GENERATED translation task "
            "(reverse, then map every word).",
            file=sys.stderr,
        )
        pairs = synthetic_translation()
        n_source = n_target = 30
    n_test = max(1, len(pairs) // 10)
    train, test = pairs[n_test:], pairs[:n_test]
    print(f"{len(train)} training pairs, {len(test)} test pairs")
    model = Seq2seq(args.layer, n_source, n_target, args.unit)
    model.to_device(device)
    optimizer = kusari.optimizers.Adam()
    optimizer.setup(model)
    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device
    )
    trainer = _common.make_trainer(updater, args)
    trainer.extend(extensions.LogReport(trigger=(1, "epoch")))
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "iteration", "main/loss", "main/perp", "elapsed_time"]
        )
    )
    trainer.extend(extensions.snapshot(n_retains=1), trigger=(1, "epoch"))
    _common.resume(trainer, args.resume)
    trainer.run()

    outs = model.translate([device.send(x) for x, _ in test])
    exact = np.mean(
        [len(o) == len(y) and bool((o == y).all()) for o, (_, y) in zip(outs, test)]
    )
    print(f"exact-match accuracy on held-out sentences: {exact:.3f}")
    _common.report_done(args)
    return float(exact)


if __name__ == "__main__":
    main()
