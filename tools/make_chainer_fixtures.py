"""Write npz fixtures with real Chainer for kusari's compatibility test.

Run under a Python that has Chainer 7.8.1 (not kusari)::

    python3.8 -m venv /tmp/chainer-venv
    /tmp/chainer-venv/bin/pip install chainer==7.8.1 "numpy<1.24"
    /tmp/chainer-venv/bin/python tools/make_chainer_fixtures.py

The models are defined once, in
``packages/core/tests/serializers_tests/_chainer_compat_models.py``, against
a framework argument; here that argument is ``chainer``, in the test it is
``kusari``. For each model spec ``name`` this writes, into
``packages/core/tests/serializers_tests/chainer_fixtures/``:

* ``name.npz``: ``chainer.serializers.save_npz(model)`` after the parameters
  were perturbed (so that biases, gammas... are not their initial values);
* ``name_io.npz``: the inputs (``in/...``) and the outputs in test mode
  (``out/...``).

It also writes ``zoo_keys.json`` (the npz keys, shapes and dtypes of the
ResNet-50, VGG-16 and GoogLeNet models built without pretrained weights)
and, for each optimizer, ``opt_name.npz`` (``save_npz(optimizer)`` after a
few updates), ``opt_name_model.npz`` (the model at that point) and
``opt_name_io.npz`` (one more batch and the parameters after one more
update).
"""

import json
import os
import sys
import zlib

import chainer
import numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "packages", "core", "tests", "serializers_tests")
sys.path.insert(0, TESTS)

import _chainer_compat_models as models  # noqa: E402


def _seed(name):
    s = zlib.crc32(name.encode())
    numpy.random.seed(s % 2**32)
    return numpy.random.RandomState((s + 1) % 2**32)


def _perturb(model, rng):
    for _, param in sorted(model.namedparams()):
        if param.array is not None and param.dtype.kind == "f":
            param.array[...] += rng.normal(0.0, 0.3, param.shape).astype(param.dtype)


def _savez(path, **groups):
    flat = {}
    for prefix, d in groups.items():
        for k, v in d.items():
            flat[f"{prefix}/{k}"] = numpy.asarray(v)
    numpy.savez_compressed(path, **flat)


def write_specs(out_dir):
    for sp in models.SPECS:
        rng = _seed(sp.name)
        model = sp.build(chainer)
        inp = sp.inputs(rng)
        if sp.warmup is not None:
            sp.warmup(chainer, model, inp)
        _perturb(model, rng)
        if sp.prepare is not None:
            sp.prepare(chainer, model, rng)
        chainer.serializers.save_npz(os.path.join(out_dir, sp.name + ".npz"), model)
        with chainer.using_config("train", False):
            out = sp.run(chainer, model, inp)
        _savez(os.path.join(out_dir, sp.name + "_io.npz"), **{"in": inp, "out": out})
        print("wrote", sp.name, sorted(out))


def write_zoo(out_dir):
    table = {}
    for name, build in sorted(models.ZOO.items()):
        _seed(name)
        model = build(chainer)
        ser = chainer.serializers.DictionarySerializer()
        ser.save(model)
        table[name] = {
            k: [list(numpy.shape(v)), numpy.asarray(v).dtype.str]
            for k, v in sorted(ser.target.items())
        }
        print("keys", name, len(table[name]))
        del model
    # One line per key: {"model": {"key": [[shape...], "dtype"], ...}, ...}.
    lines = []
    for name in sorted(table):
        rows = [
            f"    {json.dumps(k)}: {json.dumps(v)}"
            for k, v in sorted(table[name].items())
        ]
        lines.append("  {}: {{\n{}\n  }}".format(json.dumps(name), ",\n".join(rows)))
    with open(os.path.join(out_dir, "zoo_keys.json"), "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def write_optimizers(out_dir):
    for name, make in sorted(models.OPTIMIZERS.items()):
        rng = _seed("opt_" + name)
        model = models.optimizer_model(chainer)
        optimizer = make(chainer)
        optimizer.setup(model)
        for i in range(3):
            x, t = models.optimizer_batch(rng)
            models.optimizer_step(chainer, model, optimizer, x, t)
            if i == 0:
                optimizer.new_epoch()
        stem = os.path.join(out_dir, "opt_" + name)
        chainer.serializers.save_npz(stem + "_model.npz", model)
        chainer.serializers.save_npz(stem + ".npz", optimizer)
        x, t = models.optimizer_batch(rng)
        models.optimizer_step(chainer, model, optimizer, x, t)
        after = {k.lstrip("/"): p.array for k, p in model.namedparams()}
        _savez(stem + "_io.npz", **{"in": {"x": x, "t": t}, "out": after})
        print("wrote opt", name)


def main():
    # Optional argument: another output folder (to compare two runs).
    out_dir = (
        sys.argv[1] if len(sys.argv) > 1 else os.path.join(TESTS, "chainer_fixtures")
    )
    os.makedirs(out_dir, exist_ok=True)
    print("chainer", chainer.__version__, "numpy", numpy.__version__)
    write_specs(out_dir)
    write_zoo(out_dir)
    write_optimizers(out_dir)
    with open(os.path.join(out_dir, "VERSIONS.json"), "w") as f:
        json.dump(
            {
                "chainer": chainer.__version__,
                "numpy": numpy.__version__,
                "python": sys.version.split()[0],
            },
            f,
            sort_keys=True,
        )
        f.write("\n")


if __name__ == "__main__":
    main()
