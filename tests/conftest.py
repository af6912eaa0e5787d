"""Shared pytest configuration: Hypothesis profiles.

``HYPOTHESIS_PROFILE=slow`` runs many more examples (CI nightly); the default
``fast`` profile keeps ``make test`` quick. Deadlines are off because the
extension is built in debug mode and the first call of a code path is slow.
"""

import os

from hypothesis import HealthCheck, settings

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
