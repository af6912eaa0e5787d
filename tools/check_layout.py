"""The remodel's layout rules, checked in `make lint` (issue 25):

* kernels never import ops: the types both need live below both;
* no source file in crates/ or python/ is over 600 lines, except generated
  ones (their header, the first five lines, says "generated").

Run from the repository root: `python tools/check_layout.py`.
"""

import pathlib
import re
import sys

MAX_LINES = 600
KERNELS = pathlib.Path("crates/oxtensor-core/src/kernels")
SOURCES = [("crates", "*.rs"), ("python", "*.py"), ("python", "*.pyi")]


def kernel_imports_of_ops() -> list[str]:
    pattern = re.compile(r"\buse crate::ops\b|\bcrate::ops::")
    return [
        f"{path}:{n}: kernels must not use `ops`: {line.strip()}"
        for path in sorted(KERNELS.rglob("*.rs"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]


def long_files() -> list[str]:
    found = []
    for root, glob in SOURCES:
        for path in sorted(pathlib.Path(root).rglob(glob)):
            lines = path.read_text().splitlines()
            generated = "generated" in "\n".join(lines[:5]).lower()
            if len(lines) > MAX_LINES and not generated:
                found.append(f"{path}: {len(lines)} lines (at most {MAX_LINES})")
    return found


def main() -> int:
    problems = kernel_imports_of_ops() + long_files()
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
