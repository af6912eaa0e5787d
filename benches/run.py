"""Run every ``benches/bench_*.py``, each in its own process, and relay the
ratio tables they print. Exits non-zero if any benchmark failed.

One process per benchmark keeps imports, caches and allocator state from one
benchmark out of the next one's timings.
"""

import subprocess
import sys
from pathlib import Path

BENCHES = Path(__file__).resolve().parent


def run(script: Path) -> bool:
    """Run one benchmark, streaming its output; whether it succeeded."""
    print(f"== {script.name}", flush=True)
    done = subprocess.run([sys.executable, str(script)], check=False)
    if done.returncode != 0:
        print(f"!! {script.name} failed (exit {done.returncode})", flush=True)
    print(flush=True)
    return done.returncode == 0


def main() -> int:
    scripts = sorted(BENCHES.glob("bench_*.py"))
    if not scripts:
        print(f"no bench_*.py in {BENCHES}")
        return 1
    results = [run(s) for s in scripts]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
