#!/usr/bin/env python
"""Report which public names of Chainer v7 kusari does not have yet.

Reads the spec (`../shared/spec/api-v7.md`, project members only) and, for
each module section, checks the names against the matching kusari module.

    python tools/api_coverage.py            # summary per module
    python tools/api_coverage.py --missing  # and the missing names
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

SPEC = Path(__file__).resolve().parents[1].parent / "shared" / "spec" / "api-v7.md"

# Names that are out of scope (ChainerX, iDeep, static graphs, Theano/Caffe,
# DALI, multi-process GPU updater): present as clear errors or not at all.
OUT_OF_SCOPE = {
    "chainer": {"Fallback", "static_code", "static_graph"},
    "chainer.links": {"TheanoFunction"},
    "chainer.backend": {"ChainerxDevice", "Intel64Device", "from_chx", "to_chx"},
}
SKIP_MODULES = {
    "chainer.backends.intel64",
    "chainer.graph_optimizations",
    "chainer.graph_optimizations.static_graph",
    "chainer.testing",
    "chainer.testing.attr",
}


def parse_spec(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    parts = re.split(r"^### `([\w.]+)` — \d+.*$", text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        body = body.split("\n## ")[0]
        names: list[str] = []
        for line in body.splitlines():
            line = line.strip()
            if not line or line.startswith("_"):
                continue
            if line.startswith("- **"):
                line = line.split(":", 1)[1] if ":" in line else ""
            names += [
                n.strip()
                for n in line.split(",")
                if re.fullmatch(r"[A-Za-z_]\w*", n.strip())
            ]
        sections[name] = names
    return sections


def coverage(sections: dict[str, list[str]]) -> dict[str, tuple[int, list[str]]]:
    result = {}
    for module, names in sections.items():
        if module in SKIP_MODULES:
            continue
        kmod_name = "kusari" + module[len("chainer") :]
        try:
            kmod = importlib.import_module(kmod_name)
        except ImportError:
            result[module] = (len(names), list(names))
            continue
        skip = OUT_OF_SCOPE.get(module, set())
        missing = [n for n in names if n not in skip and not hasattr(kmod, n)]
        result[module] = (len(names) - len(skip & set(names)), missing)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--missing", action="store_true")
    args = parser.parse_args(argv)
    if not SPEC.exists():
        print(f"spec not found at {SPEC}", file=sys.stderr)
        return 2
    total = have = 0
    for module, (n, missing) in coverage(parse_spec(SPEC.read_text())).items():
        total += n
        have += n - len(missing)
        print(f"{module:<44} {n - len(missing):>4}/{n:<4}")
        if args.missing and missing:
            print("    missing: " + ", ".join(missing))
    print(f"{'total':<44} {have:>4}/{total:<4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
