"""Chainer-style recurrent language model: what the PTB examples rely on.

A custom ``chainer.dataset.Iterator`` that reads the word stream at several
offsets, a ``StandardUpdater`` subclass doing truncated BPTT through
``self.converter``, an evaluator on a copy of the model with an
``eval_hook``, ``LogReport(postprocess=...)``, snapshots, a resume, and a
hand-written evaluation loop that calls ``iterator.reset()``.
"""

import argparse
import os
import sys

import chainer
import chainer.functions as F
import chainer.links as L
import chainerx
import numpy as np
from chainer import training
from chainer.dataset import convert
from chainer.training import extensions


class TwoLayerLSTM(chainer.Chain):
    def __init__(self, vocab, units):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units)
            self.rnn1 = L.LSTM(units, units)
            self.rnn2 = L.LSTM(units, units)
            self.out = L.Linear(units, vocab)
        for param in self.params():
            param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)

    def reset_state(self):
        self.rnn1.reset_state()
        self.rnn2.reset_state()

    def forward(self, words):
        h = self.rnn1(F.dropout(self.embed(words)))
        h = self.rnn2(F.dropout(h))
        return self.out(F.dropout(h))


class StridedWords(chainer.dataset.Iterator):
    """Yields (word, next word) pairs read at ``batch`` evenly spaced offsets."""

    def __init__(self, words, batch, repeat=True):
        super().__init__()
        self.words = words
        self.batch = batch
        self.repeat = repeat
        self.starts = [i * len(words) // batch for i in range(batch)]
        self.reset()

    def reset(self):
        self.step = 0
        self.epoch = 0
        self.is_new_epoch = False
        self._previous = -1.0

    def __next__(self):
        n = len(self.words)
        if not self.repeat and self.step * self.batch >= n:
            raise StopIteration
        here = [self.words[(s + self.step) % n] for s in self.starts]
        self._previous = self.epoch_detail
        self.step += 1
        after = [self.words[(s + self.step) % n] for s in self.starts]
        epoch = self.step * self.batch // n
        self.is_new_epoch = epoch > self.epoch
        self.epoch = epoch
        return list(zip(here, after))

    @property
    def epoch_detail(self):
        return self.step * self.batch / len(self.words)

    @property
    def previous_epoch_detail(self):
        return None if self._previous < 0 else self._previous

    def serialize(self, serializer):
        self.step = serializer("iteration", self.step)
        self.epoch = serializer("epoch", self.epoch)
        self._previous = serializer("previous_epoch_detail", self._previous)


class TruncatedBPTT(training.updaters.StandardUpdater):
    def __init__(self, iterator, optimizer, length, device):
        super().__init__(iterator, optimizer, device=device)
        self.length = length

    def update_core(self):
        iterator = self.get_iterator("main")
        optimizer = self.get_optimizer("main")
        loss = 0
        for _ in range(self.length):
            x, t = self.converter(iterator.__next__(), self.device)
            loss += optimizer.target(chainer.Variable(x), chainer.Variable(t))
        optimizer.target.cleargrads()
        loss.backward()
        loss.unchain_backward()
        optimizer.update()


def add_perplexity(entry):
    entry["perplexity"] = np.exp(entry["main/loss"])
    if "validation/main/loss" in entry:
        entry["val_perplexity"] = np.exp(entry["validation/main/loss"])


def run_trainer(args, device, train, valid, vocab, resume=None):
    model = L.Classifier(TwoLayerLSTM(vocab, args.unit))
    model.compute_accuracy = False
    model.to_device(device)
    optimizer = chainer.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.GradientClipping(5.0))
    updater = TruncatedBPTT(
        StridedWords(train, args.batchsize), optimizer, args.bproplen, device
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    evaluation_model = model.copy()
    evaluation_rnn = evaluation_model.predictor
    trainer.extend(
        extensions.Evaluator(
            StridedWords(valid, 1, repeat=False),
            evaluation_model,
            device=device,
            eval_hook=lambda _: evaluation_rnn.reset_state(),
        )
    )
    trainer.extend(
        extensions.LogReport(postprocess=add_perplexity, trigger=(1, "epoch"))
    )
    trainer.extend(extensions.PrintReport(["epoch", "perplexity", "val_perplexity"]))
    trainer.extend(extensions.snapshot())
    trainer.extend(extensions.snapshot_object(model, "model_iter_{.updater.iteration}"))
    if resume:
        chainer.serializers.load_npz(resume, trainer)
    trainer.run()
    return trainer, model


def perplexity_by_hand(model, words, device):
    evaluator = model.copy()
    evaluator.predictor.reset_state()
    iterator = StridedWords(words, 1, repeat=False)
    iterator.reset()
    total, count = 0.0, 0
    with (
        chainer.using_config("train", False),
        chainer.using_config("enable_backprop", False),
    ):
        for batch in iterator:
            x, t = convert.concat_examples(batch, device)
            total += float(evaluator(x, t).array)
            count += 1
    return np.exp(total / count)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batchsize", "-b", type=int, default=10)
    parser.add_argument("--bproplen", "-l", type=int, default=5)
    parser.add_argument("--epoch", "-e", type=int, default=1)
    parser.add_argument("--unit", "-u", type=int, default=16)
    parser.add_argument("--device", "-d", type=str, default="-1")
    parser.add_argument("--out", "-o", default="result")
    args = parser.parse_args()
    device = chainer.get_device(args.device)
    if device.xp is chainerx:
        sys.exit("ChainerX is not supported here")
    device.use()

    train, valid, test = chainer.datasets.get_ptb_words()
    vocab = max(train) + 1
    train, valid, test = train[:200], valid[:50], test[:50]
    trainer, model = run_trainer(args, device, train, valid, vocab)
    first = trainer.updater.iteration
    assert os.path.exists(os.path.join(args.out, f"model_iter_{first}"))
    args.epoch += 1
    snapshot = os.path.join(args.out, f"snapshot_iter_{first}")
    trainer, model = run_trainer(args, device, train, valid, vocab, snapshot)
    assert trainer.updater.iteration == 2 * first, trainer.updater.iteration
    score = perplexity_by_hand(model, test, device)
    assert 1.0 < score < 10 * vocab, score
    chainer.serializers.save_npz(os.path.join(args.out, "final.npz"), model)
    print("OK language_model")


if __name__ == "__main__":
    main()
