"""Shared pytest configuration: Hypothesis profiles.

``HYPOTHESIS_PROFILE=slow`` runs many more examples (CI nightly); the default
``fast`` profile keeps ``make test`` quick. Deadlines are off because the
extension is built in debug mode and the first call of a code path is slow.
"""

import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers import PATHS

settings.register_profile(
    "fast",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "slow",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# `make fuzz`: rounds of many examples for `tests/test_fuzz_crash.py`.
settings.register_profile(
    "fuzz",
    max_examples=3000,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture(params=sorted(PATHS))
def path(request: pytest.FixtureRequest) -> Callable[[Any], Any]:
    """Runs a test once per execution path: ``path(x)`` is ``x`` itself
    (native kernels only) or ``x`` passed through a Python op's ``perform``
    or ``make_thunk`` first."""
    return PATHS[request.param]
