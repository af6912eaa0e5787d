"""Shared pytest configuration: Hypothesis profiles, and the fixtures that
put back process-wide state a test changes.

``HYPOTHESIS_PROFILE=slow`` runs many more examples (CI nightly); the default
``fast`` profile keeps ``make test`` quick. Deadlines are off in both: the
extension is built in debug mode, the first call of a code path is slow, and
no test may fail because the machine is slow or loaded.

Tests run in random order (pytest-randomly: a run's last line gives the
seed, ``--randomly-seed=N`` runs that order again, ``-p no:randomly`` keeps
file order). So a test that changes process-wide state (the BLAS routing,
Python's recursion limit, environment variables: ``monkeypatch``) does it
through a fixture that puts it back, never by hand.
"""

import os
import sys
from collections.abc import Callable, Iterator
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
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture(params=sorted(PATHS))
def path(request: pytest.FixtureRequest) -> Callable[[Any], Any]:
    """Runs a test once per execution path: ``path(x)`` is ``x`` itself
    (native kernels only) or ``x`` passed through a Python op's ``perform``
    or ``make_thunk`` first."""
    return PATHS[request.param]


@pytest.fixture
def blas_engine() -> Iterator[Callable[[str], str | None]]:
    """``blas_engine(name)`` routes linear algebra as ``blas.use_blas(name)``
    does, for this test only: the routing from before (``OXTENSOR_BLAS``'s,
    at import) is back afterwards, whatever the test installed."""
    from oxtensor.tensor import blas

    before = blas.blas_mode()
    yield blas.use_blas
    blas.use_blas(before)


@pytest.fixture
def recursion_limit() -> Iterator[Callable[[int], None]]:
    """``recursion_limit(n)`` sets Python's recursion limit; the limit from
    before the test is back after it, even if the test fails."""
    before = sys.getrecursionlimit()
    yield sys.setrecursionlimit
    sys.setrecursionlimit(before)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The random order's seed, last (``-q`` hides pytest-randomly's header
    line), so a failing order can be run again."""
    if config.pluginmanager.hasplugin("randomly"):
        seed = config.getoption("randomly_seed")
        terminalreporter.write_line(
            f"random order: rerun it with --randomly-seed={seed}"
        )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", help="also run tests marked slow"
    )


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
