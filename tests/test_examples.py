"""The examples run, and the README's example is real.

Every ``examples/*.py`` runs in its own interpreter with warnings as errors.
The README's ``python`` block is executed the same way; its output must be the
``text`` block printed under it, and the same as ``examples/quickstart.py``'s.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def run_python(*args: str) -> str:
    """Stdout of a fresh interpreter; a failure shows its stderr."""
    done = subprocess.run(
        [sys.executable, "-W", "error", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def readme_blocks(lang: str) -> list[str]:
    """The README's fenced code blocks in ``lang``, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.DOTALL)


def test_there_are_examples() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"quickstart.py", "custom_op.py"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(example: Path) -> None:
    assert run_python(str(example)).strip()


def test_readme_example_prints_what_the_readme_shows() -> None:
    code, shown = readme_blocks("python")[0], readme_blocks("text")[0]
    printed = run_python("-c", code)
    assert printed == shown
    assert printed == run_python(str(ROOT / "examples" / "quickstart.py"))
