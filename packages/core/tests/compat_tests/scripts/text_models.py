"""Chainer-style text models: what the sentiment and text-classification
examples rely on.

A recursive network over parse trees read from ``trees/*.txt`` (one graph
per tree, a pass-through ``@converter()``, ``AdaGrad``, ``MicroAverage``),
and sentence classifiers (``NStepLSTM`` over a list of sequences, a CNN over
padded blocks) fed by an old-style converter that gets the device as an
integer, with data read through ``chainer.dataset.cached_download`` and the
best model kept by ``MaxValueTrigger``.
"""

import argparse
import collections
import os
import re

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import reporter, training
from chainer.training import extensions

TREC_URL = (
    "https://raw.githubusercontent.com/harvardnlp/sent-conv-torch/master/data/"
    "TREC.{}.all"
)


def parse_tree(line):
    tokens = re.findall(r"\(|\)|[^() ]+", line)
    stack = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    return stack[0][0]


def to_ids(vocab, tree):
    if len(tree) == 2 and isinstance(tree[1], str):
        return {"label": int(tree[0]), "word": vocab.setdefault(tree[1], len(vocab))}
    return {
        "label": int(tree[0]),
        "children": (to_ids(vocab, tree[1]), to_ids(vocab, tree[2])),
    }


class TreeNet(chainer.Chain):
    def __init__(self, vocab, units, labels):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units)
            self.combine = L.Linear(units * 2, units)
            self.classify = L.Linear(units, labels)

    def visit(self, node, counts):
        if "word" in node:
            v = self.embed(self.xp.array([node["word"]], np.int32))
            loss = 0
        else:
            left_loss, left = self.visit(node["children"][0], counts)
            right_loss, right = self.visit(node["children"][1], counts)
            v = F.tanh(self.combine(F.concat((left, right))))
            loss = left_loss + right_loss
        y = self.classify(v)
        t = chainer.Variable(
            self.xp.array([node["label"]], np.int32), requires_grad=False
        )
        loss += F.softmax_cross_entropy(y, t)
        counts["total"] += 1
        counts["correct"] += int(y.array.argmax() == node["label"])
        return loss, v

    def forward(self, trees):
        counts = collections.Counter()
        loss = 0.0
        for tree in trees:
            loss += self.visit(tree, counts)[0]
        reporter.report(
            {"loss": loss, "total": counts["total"], "correct": counts["correct"]}, self
        )
        return loss


@chainer.dataset.converter()
def keep_as_is(batch, device):
    return batch


def train_trees(args, device):
    vocab = {}
    splits = {}
    for split in ("train", "dev"):
        with open(os.path.join("trees", split + ".txt")) as f:
            splits[split] = [to_ids(vocab, parse_tree(line.strip())) for line in f]
    model = TreeNet(len(vocab), 10, 5)
    model.to_device(device)
    optimizer = chainer.optimizers.AdaGrad(lr=0.1)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(0.0001))
    updater = training.StandardUpdater(
        chainer.iterators.SerialIterator(splits["train"], 10),
        optimizer,
        converter=keep_as_is,
        device=device,
    )
    trainer = training.Trainer(updater, (1, "epoch"), os.path.join(args.out, "trees"))
    trainer.extend(
        extensions.Evaluator(
            chainer.iterators.SerialIterator(splits["dev"], 10, repeat=False),
            model,
            converter=keep_as_is,
            device=device,
        )
    )
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.MicroAverage("main/correct", "main/total", "main/accuracy")
    )
    trainer.extend(extensions.PrintReport(["epoch", "main/loss", "main/accuracy"]))
    trainer.run()
    log = trainer.get_extension("LogReport").log
    assert 0.0 <= log[-1]["main/accuracy"] <= 1.0, log


def read_questions(path, vocab):
    data = []
    with open(path) as f:
        for line in f:
            label, text = line.split(None, 1)
            ids = [vocab.setdefault(w, len(vocab)) for w in text.split()]
            data.append((np.array(ids, np.int32), np.array([int(label)], np.int32)))
    return data


def sequences_to(batch, device=None):
    # An old-style converter: Chainer passes -1 for the CPU.
    def send(arrays):
        if device is None or device < 0:
            return [chainer.dataset.to_device(device, a) for a in arrays]
        return [chainer.backends.cuda.to_gpu(a, device) for a in arrays]

    return {"xs": send([x for x, _ in batch]), "ys": send([y for _, y in batch])}


class SentenceClassifier(chainer.Chain):
    def __init__(self, vocab, units, classes, recurrent):
        super().__init__()
        self.recurrent = recurrent
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units, ignore_label=-1)
            if recurrent:
                self.lstm = L.NStepLSTM(1, units, units, 0.1)
            else:
                self.conv = L.Convolution2D(units, units, ksize=(3, 1), pad=(2, 0))
            self.out = L.Linear(units, classes)

    def encode(self, xs):
        if self.recurrent:
            lengths = np.cumsum([len(x) for x in xs[:-1]])
            words = F.split_axis(self.embed(F.concat(xs, axis=0)), lengths, 0)
            last_h, _, _ = self.lstm(None, None, words)
            return last_h[-1]
        block = chainer.dataset.concat_examples(xs, padding=-1)
        e = F.transpose(self.embed(block), (0, 2, 1))[:, :, :, None]
        return F.relu(F.max(self.conv(e), axis=2)[:, :, 0])

    def forward(self, xs, ys):
        y = self.out(F.dropout(self.encode(xs), 0.2))
        t = F.concat(ys, axis=0)
        loss = F.softmax_cross_entropy(y, t)
        reporter.report({"loss": loss, "accuracy": F.accuracy(y, t)}, self)
        return loss


def train_questions(args, recurrent):
    vocab = {"<unk>": 0}
    train = read_questions(
        chainer.dataset.cached_download(TREC_URL.format("train")), vocab
    )
    test = read_questions(
        chainer.dataset.cached_download(TREC_URL.format("test")), vocab
    )
    classes = len({int(y[0]) for _, y in train})
    model = SentenceClassifier(len(vocab), 12, classes, recurrent)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer.WeightDecay(1e-4))
    updater = training.updaters.StandardUpdater(
        chainer.iterators.SerialIterator(train, 32),
        optimizer,
        converter=sequences_to,
        device=args.gpu,
    )
    out = os.path.join(args.out, "rnn" if recurrent else "cnn")
    trainer = training.Trainer(updater, (1, "epoch"), out=out)
    trainer.extend(
        extensions.Evaluator(
            chainer.iterators.SerialIterator(test, 32, repeat=False, shuffle=False),
            model,
            converter=sequences_to,
            device=args.gpu,
        )
    )
    best = training.triggers.MaxValueTrigger("validation/main/accuracy", (1, "epoch"))
    trainer.extend(extensions.snapshot_object(model, "best_model.npz"), trigger=best)
    trainer.extend(extensions.LogReport())
    trainer.run()
    assert os.path.exists(os.path.join(out, "best_model.npz"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", "-g", type=int, default=-1)
    parser.add_argument("--out", "-o", default="result")
    args = parser.parse_args()
    device = chainer.get_device(args.gpu)
    device.use()
    train_trees(args, device)
    train_questions(args, recurrent=True)
    train_questions(args, recurrent=False)
    print("OK text_models")


if __name__ == "__main__":
    main()
