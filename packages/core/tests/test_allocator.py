"""kusari._allocator: glibc's malloc settings applied at import."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from kusari import _allocator

_GLIBC = sys.platform.startswith("linux") and _allocator._is_glibc()

# Makes and frees two same-sized 6 MiB arrays per round, as a training step
# does with its activations, and prints the page faults per round once warm.
_ROUNDS = textwrap.dedent(
    """
    import resource
    import kusari
    import numpy
    for _ in range(3):
        a = numpy.ones(3 << 19); b = numpy.ones(3 << 19); del a, b
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        a = numpy.ones(3 << 19); b = numpy.ones(3 << 19); del a, b
    after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    print((after - before) / 20)
    """
)


def _faults_per_round(**env: str) -> float:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    clean.pop("GLIBC_TUNABLES", None)
    clean.update(env)
    out = subprocess.run(
        [sys.executable, "-c", _ROUNDS],
        env=clean,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return float(out.stdout.split()[-1])


def test_import_stops_page_faults_of_repeated_large_arrays():
    untuned = _faults_per_round(KUSARI_MALLOC_TUNING="0")
    tuned = _faults_per_round()
    if _GLIBC:
        # Two 6 MiB arrays touched are 3,072 pages: glibc's defaults map and
        # unmap them every round; with the settings the memory is kept.
        assert untuned >= 500
        assert tuned < 50
    else:
        # Another C library: kusari leaves its allocator alone.
        assert _allocator.tune({}) is False


def test_tune_applies_where_the_c_library_is_glibc():
    assert _allocator.tune({}) is _GLIBC


@pytest.mark.parametrize(
    "environ",
    [
        {"KUSARI_MALLOC_TUNING": "0"},
        {"KUSARI_MALLOC_TUNING": "off"},
        {"MALLOC_MMAP_THRESHOLD_": "131072"},
        {"MALLOC_TRIM_THRESHOLD_": "0"},
        {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"},
    ],
)
def test_switched_off_or_left_to_the_users_settings(environ):
    assert _allocator.tune(environ) is False


def test_unknown_switch_value_warns_and_leaves_it():
    with pytest.warns(RuntimeWarning, match="KUSARI_MALLOC_TUNING='maybe'"):
        assert _allocator.tune({"KUSARI_MALLOC_TUNING": "maybe"}) is False


def test_unrelated_glibc_tunables_do_not_switch_it_off():
    expected = _GLIBC
    assert _allocator.tune({"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX"}) is expected
