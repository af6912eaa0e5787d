"""A panic in the extension is a bug in oxtensor: it reaches Python as
`oxtensor.InternalError`, an `Exception` (PyO3's own `PanicException` is a
`BaseException` that escapes `except Exception`), and prints nothing on
stderr unless `RUST_BACKTRACE` asks for Rust's report (`panics.rs`)."""

import os
import subprocess
import sys

import oxtensor
import pytest
from oxtensor import _core


def test_a_panic_is_an_internal_error_that_says_it_is_a_bug(capfd, monkeypatch):
    monkeypatch.delenv("RUST_BACKTRACE", raising=False)
    with pytest.raises(oxtensor.InternalError, match="a bug in oxtensor") as e:
        _core._panic("an invariant failed")
    assert isinstance(e.value, Exception)
    where = "an invariant failed at crates/oxtensor-py/src/errors/panics.rs:"
    assert where in str(e.value)
    assert capfd.readouterr().err == ""


def test_rust_backtrace_brings_back_rusts_report():
    code = (
        "from oxtensor import _core\n"
        "try:\n    _core._panic('loud')\nexcept Exception:\n    pass\n"
    )
    env = {**os.environ, "RUST_BACKTRACE": "1"}
    run = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "panicked at" in run.stderr
    assert "loud" in run.stderr
