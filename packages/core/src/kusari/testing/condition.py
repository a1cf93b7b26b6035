"""Run a flaky (random) test several times and judge by the count of passes.

Example:
    >>> import numpy as np
    >>> from kusari.testing import condition
    >>> @condition.repeat_with_success_at_least(10, 3)
    ... def test_sometimes():
    ...     assert np.random.rand() < 0.9
    >>> test_sometimes()
"""

from __future__ import annotations

import functools
import unittest
from collections.abc import Callable
from typing import Any

import pytest

_SKIPS = (unittest.SkipTest, pytest.skip.Exception)


def repeat_with_success_at_least(times: int, min_success: int) -> Callable[[Any], Any]:
    """Run the test up to ``times`` times; pass once ``min_success`` runs pass.

    Stops as soon as the outcome is decided. A skip in any run skips the test.
    On a ``unittest.TestCase`` each extra run gets its own ``setUp`` /
    ``tearDown``, so runs do not share state.
    """
    if not 0 <= min_success <= times:
        raise ValueError(
            f"repeat_with_success_at_least: need 0 <= min_success <= times, got "
            f"times={times}, min_success={min_success}"
        )

    def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            case = args[0] if args and isinstance(args[0], unittest.TestCase) else None
            successes = failures = 0
            last_error: BaseException | None = None
            for trial in range(times):
                if successes >= min_success or failures > times - min_success:
                    break
                if case is not None and trial > 0:
                    case.setUp()
                try:
                    f(*args, **kwargs)
                    successes += 1
                except _SKIPS:
                    raise
                except AssertionError as e:  # a failed check, not an error
                    failures += 1
                    last_error = e
                finally:
                    if case is not None and trial < times - 1:
                        case.tearDown()
            if successes < min_success:
                raise AssertionError(
                    f"{f.__name__}: {successes} of {successes + failures} runs "
                    f"passed, {min_success} needed (of at most {times}); last "
                    f"failure: {last_error}"
                ) from last_error

        return wrapper

    return decorator


def repeat(times: int) -> Callable[[Any], Any]:
    """The test must pass ``times`` times in a row."""
    return repeat_with_success_at_least(times, times)


def retry(times: int) -> Callable[[Any], Any]:
    """The test must pass once in at most ``times`` tries."""
    return repeat_with_success_at_least(times, 1)
