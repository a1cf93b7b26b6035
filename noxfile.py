"""Every check of the kusari monorepo runs through nox.

nox                 # what CI runs: lint, typecheck, tests (each package), wheel, docs
nox -s demo         # train the MNIST MLP and write result/
nox -s bench        # benchmarks, side by side with PyTorch CPU when installable
nox -s slow         # the long tests
nox -s docs         # the documentation site (Sphinx, warnings are errors)
nox -s format       # apply ruff's formatting (lint checks it)
nox -s "tests(package='core')" -- -k linear   # a subset
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

ROOT = Path(__file__).parent
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "typecheck", "tests", "wheel", "docs"]
nox.options.error_on_missing_interpreters = False

# Packages exist once they have content; siblings install from local paths.
PACKAGES = sorted(
    p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").exists()
)
SIBLINGS = {"core": [], "mn": ["core"], "rl": ["core"], "cv": ["core"], "ui": ["core"]}
# The formatter's output changes between ruff releases: one version for all.
RUFF = "ruff==0.17.6"
SHARED_MNIST = ROOT.parent / "shared" / "data" / "mnist"
# The default test run: not the slow tests (`nox -s slow`), nor the suites that
# need files this repository does not have: Chainer's own example scripts
# (`nox -s chainer_examples`) and the real MNIST files (`nox -s real_mnist`).
OPT_IN_MARKS = "chainer_examples or real_mnist"
DEFAULT_MARKS = f"not slow and not ({OPT_IN_MARKS})"


def _source_dir(package: str) -> Path:
    """``packages/<package>/src/<import name>``."""
    name = "kusari" if package == "core" else f"kusari_{package}"
    return ROOT / "packages" / package / "src" / name


def _install_package(session: nox.Session, package: str, extras: str = "test") -> None:
    args = []
    for sibling in SIBLINGS.get(package, []):
        args += ["-e", str(ROOT / "packages" / sibling)]
    target = ROOT / "packages" / package
    args += ["-e", f"{target}[{extras}]" if extras else str(target)]
    session.install(*args)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the whole tree: the lint rules, and the formatting.

    ruff is pinned: its formatter's style moves between releases, and the
    tree is formatted with this one (``nox -s format`` applies it).
    """
    session.install(RUFF)
    session.run("ruff", "check", str(ROOT), *session.posargs)
    session.run("ruff", "format", "--check", str(ROOT))


@nox.session(name="format")
def format_(session: nox.Session) -> None:
    """Apply ruff's formatting (and its import sorting) to the whole tree."""
    session.install(RUFF)
    session.run("ruff", "check", "--select", "I", "--fix", str(ROOT))
    session.run("ruff", "format", str(ROOT))


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy on each package's sources."""
    session.install("mypy>=1.10")
    targets = []
    for package in PACKAGES:
        _install_package(session, package, extras="")
        targets.append(str(_source_dir(package)))
    session.run("mypy", *targets, *session.posargs)


@nox.session
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """pytest for one package (slow tests excluded; doctests included for core)."""
    _install_package(session, package)
    pkg = ROOT / "packages" / package
    args = [str(pkg / "tests"), "-m", DEFAULT_MARKS, "-p", "no:cacheprovider"]
    if package == "core":
        args += ["--doctest-modules", str(pkg / "src" / "kusari")]
    session.run("pytest", *args, *session.posargs, env={"MPLBACKEND": "Agg"})
    if package == "core" and not session.posargs:
        # The doctests again on NumPy's baseline kernels (its SIMD dispatch
        # turned off), so an output that depends on the CPU's vector units
        # fails here rather than on a user's machine.
        dispatched = session.run(
            "python",
            "-c",
            "from numpy._core._multiarray_umath import __cpu_dispatch__ as d;"
            "print(' '.join(d))",
            silent=True,
        )
        session.run(
            "pytest",
            "--doctest-modules",
            str(pkg / "src" / "kusari"),
            "-q",
            "-p",
            "no:cacheprovider",
            env={"MPLBACKEND": "Agg", "NPY_DISABLE_CPU_FEATURES": dispatched.strip()},
        )


@nox.session
def chainer_examples(session: nox.Session) -> None:
    """Chainer v7's own example scripts, unchanged, through the chainer alias.

    They are Chainer's code, not in this repository: point
    ``KUSARI_CHAINER_EXAMPLES`` at a copy of Chainer v7's ``examples/`` folder.
    """
    where = os.environ.get("KUSARI_CHAINER_EXAMPLES")
    if not where or not Path(where).is_dir():
        session.error(
            "KUSARI_CHAINER_EXAMPLES must name a copy of Chainer v7's examples/ "
            f"folder (got {where!r}); e.g. the examples/ of a Chainer v7 checkout"
        )
    _install_package(session, "core")
    session.run(
        "pytest",
        str(ROOT / "packages" / "core" / "tests" / "compat_tests"),
        "-m",
        "chainer_examples",
        "-p",
        "no:cacheprovider",
        *session.posargs,
    )


@nox.session
def real_mnist(session: nox.Session) -> None:
    """The tests that check the real MNIST files (gzipped IDX, as published).

    They read the folder ``KUSARI_MNIST_DIR`` names, else a
    ``shared/data/mnist`` beside the checkout; the session refuses to start
    without the four files.
    """
    where = Path(os.environ.get("KUSARI_MNIST_DIR") or SHARED_MNIST)
    names = [
        "train-images-idx3-ubyte.gz",
        "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz",
        "t10k-labels-idx1-ubyte.gz",
    ]
    missing = [n for n in names if not (where / n).is_file()]
    if missing:
        session.error(
            f"the real MNIST files are not in {where} (missing: {', '.join(missing)}); "
            "set KUSARI_MNIST_DIR to the folder that holds them"
        )
    _install_package(session, "core")
    session.run(
        "pytest",
        str(ROOT / "packages" / "core" / "tests" / "datasets_tests"),
        "-m",
        "real_mnist",
        "-p",
        "no:cacheprovider",
        *session.posargs,
        env={"KUSARI_MNIST_DIR": str(where)},
    )


@nox.session
def slow(session: nox.Session) -> None:
    """The tests marked slow, for every package."""
    for package in PACKAGES:
        _install_package(session, package)
    for package in PACKAGES:
        session.run(
            "pytest",
            str(ROOT / "packages" / package / "tests"),
            "-m",
            f"slow and not ({OPT_IN_MARKS})",
            "-p",
            "no:cacheprovider",
            success_codes=[0, 5],
        )


@nox.session
def wheel(session: nox.Session) -> None:
    """Build each package's wheel (poetry-core) and import it in a clean venv."""
    session.install("build")
    dist = Path(session.create_tmp()) / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    for package in PACKAGES:
        session.run(
            "python",
            "-m",
            "build",
            "--wheel",
            "--outdir",
            str(dist),
            str(ROOT / "packages" / package),
        )
    wheels = sorted(str(w) for w in dist.glob("*.whl"))
    session.install(*wheels)
    session.chdir(session.create_tmp())  # away from the source tree
    session.run(
        "python",
        "-c",
        "import kusari, kusari.functions as F, kusari.links as L; "
        "import numpy as np; "
        "y = F.sum(L.Linear(3, 2)(np.ones((1, 3), np.float32))); y.backward(); "
        "print('kusari', kusari.__version__, 'wheel OK')",
    )
    for package in PACKAGES:
        if package != "core":
            name = _source_dir(package).name
            session.run("python", "-c", f"import {name}; print('{name} wheel OK')")


@nox.session
def demo(session: nox.Session) -> None:
    """Train the MNIST MLP with a progress bar; results go to ./result."""
    _install_package(session, "core", extras="demo")
    env = {}
    root = Path(
        os.environ.get("KUSARI_DATASET_ROOT", Path.home() / ".kusari" / "dataset")
    )
    cache = root / "pfnet" / "chainer" / "mnist"
    if SHARED_MNIST.is_dir() and not any(cache.glob("*.gz")):
        # A checkout that sits beside a `shared/data/mnist` folder of the gzipped
        # IDX files seeds the cache from it, as a download would; elsewhere
        # the example downloads MNIST, or falls back to scikit-learn's digits.
        cache.mkdir(parents=True, exist_ok=True)
        for f in SHARED_MNIST.glob("*.gz"):
            shutil.copy(f, cache / f.name)
    session.run(
        "python",
        str(ROOT / "packages" / "core" / "examples" / "mnist" / "train_mnist.py"),
        "--out",
        str(ROOT / "result"),
        *session.posargs,
        env=env,
    )
    session.log(
        "Browse the run in kusari-ui:  pip install ./packages/ui && "
        "kusari-ui db create && kusari-ui project create -d result -n mnist && "
        "kusari-ui server   (then open http://127.0.0.1:5000/)"
    )


@nox.session(venv_backend="virtualenv")
def bench(session: nox.Session) -> None:
    """Benchmarks, with PyTorch CPU side by side when it can be installed.

    pip rather than uv: pip honours local wheel locations (a CPU build of
    torch where one is provided) where uv would fetch a CUDA build.
    """
    _install_package(session, "core", extras="")
    try:
        session.install("torch==2.13.0")
    except Exception:
        session.warn("PyTorch could not be installed: kusari columns only")
    benches = ROOT / "packages" / "core" / "benchmarks"
    for script in sorted(benches.glob("bench_*.py")):
        session.run("python", str(script))
    # Each extension package's benchmarks/bench_*.py, after installing it.
    for package in PACKAGES:
        if package == "core":
            continue
        benches = ROOT / "packages" / package / "benchmarks"
        scripts = sorted(benches.glob("bench_*.py"))
        if not scripts:
            continue
        # A package lists what its benchmarks compare against (SB3,
        # torchvision, ...) in a `bench` extra.
        declared = (ROOT / "packages" / package / "pyproject.toml").read_text()
        try:
            _install_package(
                session, package, extras="bench" if "\nbench = " in declared else ""
            )
        except Exception:
            session.warn(f"{package}: its comparison libraries could not be installed")
            _install_package(session, package, extras="")
        for script in scripts:
            args = session.posargs or (["--scale", "0.1"] if package == "ui" else [])
            session.run("python", str(script), *args)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site into .nox/docs/tmp/docs/html.

    Sphinx with warnings as errors; then the pages' examples run as doctests,
    and the site's links and search are checked (in Chromium when installed).
    """
    for package in ("core", "ui", "rl", "cv"):
        if package in PACKAGES:
            _install_package(session, package, extras="")
    # mpi4py builds against the MPI found here; without one, the kusari_mn API
    # page says the package was not installed.
    if "mn" in PACKAGES and shutil.which("mpiexec"):
        _install_package(session, "mn", extras="")
    elif "mn" in PACKAGES:
        session.warn("no MPI (mpiexec) found: kusari-mn is left out of the API pages")
    session.install("-r", str(ROOT / "docs" / "requirements.txt"))
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if Path(chromium).exists():
        session.install("playwright>=1.40")  # drives the system Chromium
    out = Path(session.create_tmp()) / "docs"
    shutil.rmtree(out, ignore_errors=True)
    source, doctrees = str(ROOT / "docs"), str(out / "doctrees")
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    build = ["sphinx-build", "-W", "--keep-going", "-q", "-d", doctrees]
    session.run(*build, "-j", "auto", "-b", "html", source, str(out / "html"), env=env)
    # The same doctrees: the doctest builder reuses the pages parsed above.
    session.run(*build, "-b", "doctest", source, str(out / "doctest"), env=env)
    session.run("python", str(ROOT / "docs" / "_check_site.py"), str(out / "html"))
    session.log(f"Documentation: {out / 'html' / 'index.html'}")
