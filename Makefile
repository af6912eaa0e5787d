# The only entry points. `make help` lists them; CI runs `make ci`.
.DEFAULT_GOAL := all
SHELL := /bin/bash

VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed-v1
# Python sources to lint; benches/ and examples/ may not exist yet.
PY_SRC := $(wildcard python tests benches examples)
export CARGO_INCREMENTAL ?= 0
# The fuzz properties' budget in `make test` (and so CI): proptest's cases per
# property and the Hypothesis profile (`tests/conftest.py`). `make fuzz` runs
# rounds of far more, with new seeds each round, for FUZZ_MINUTES.
export PROPTEST_CASES ?= 256
FUZZ_MINUTES ?= 30
FUZZ_CASES ?= 20000

.PHONY: help venv build release example test test-rust test-python test-matrix test-ci-matrix \
	lint fmt stubs bench soak random-graphs fuzz ci all clean pytensor-suite

# The configurations other machines run in (README, "Developing"): one and
# two threads, each BLAS engine, the SIMD level capped at AVX2 and at the
# baseline. `make test-matrix` runs every test in each.
MATRIX := RAYON_NUM_THREADS=1 RAYON_NUM_THREADS=2 OXTENSOR_BLAS=faer OXTENSOR_BLAS=numpy \
	OXTENSOR_SIMD=avx2 OXTENSOR_SIMD=baseline
# CI runs two of them, each with its opposite numbers, on the Python tests
# of what they change (products, decompositions, reductions, fused sums,
# vectorised math, threads): a few minutes each.
CI_MATRIX := "RAYON_NUM_THREADS=1 OXTENSOR_SIMD=baseline OXTENSOR_BLAS=numpy" \
	"RAYON_NUM_THREADS=2 OXTENSOR_SIMD=avx2 OXTENSOR_BLAS=faer"
CI_MATRIX_TESTS := tests/tensor/test_blas.py tests/tensor/test_lapack.py \
	tests/tensor/test_matmul.py tests/tensor/test_reductions.py \
	tests/tensor/test_large_reductions.py tests/tensor/test_vmath.py \
	tests/tensor/test_vmath_trig.py tests/compile/test_fusion.py \
	tests/compile/test_fusion_sum.py tests/test_threads.py
# One configuration's run: its settings and the SIMD level they give first.
in_config = echo "== $(1)" && env $(1) $(PY) -c \
	'from oxtensor import _core; print("SIMD level %s (CPU: %s)" % _core._simd()[:2])' && \
	env $(1) $(2)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-15s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml requirements-dev.txt
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -r requirements-dev.txt
	@# Optional: without JAX, tests/link/jax/ is skipped (pytest -ra says so).
	$(PIP) install -q "jax[cpu]" || echo "JAX not installed: its tests will be skipped"
	touch $(STAMP)

venv: $(STAMP) ## create .venv with maturin, pytest(-randomly), hypothesis, ruff, mypy, numpy

# `_core.pyi` is a build product, like the extension it describes: written
# after each build from the extension and the rooms' annotations.pyi files.
build: venv ## build the extension (debug) into .venv, and its type stub
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop -q
	$(PY) tools/stubgen.py

release: venv ## build the extension (release) into .venv, and its type stub
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop -q --release
	$(PY) tools/stubgen.py

example: build ## set up and run examples/quickstart.py
	$(PY) examples/quickstart.py

test-rust: ## cargo test for the workspace (the core needs no Python)
	cargo test --workspace -q

test-python: build ## pytest, in random order (the seed is printed last)
	$(PY) -m pytest -q

test: test-rust test-python ## set up and run every test (cargo test + pytest)

test-matrix: build ## every test once per thread count, BLAS engine and SIMD cap
	@for cfg in $(MATRIX); do \
		$(call in_config,$$cfg,cargo test --workspace -q) && \
		env $$cfg $(PY) -m pytest -q || exit 1; \
	done

test-ci-matrix: build ## CI's short runs of the tests in two other configurations
	@for cfg in $(CI_MATRIX); do \
		$(call in_config,$$cfg,$(PY) -m pytest -q $(CI_MATRIX_TESTS)) || exit 1; \
	done

lint: build ## rustfmt, clippy, ruff, stubtest (_core.pyi against the built extension), layout rules
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -q -- -D warnings
	$(VENV)/bin/ruff check python tests benches examples
	$(VENV)/bin/ruff format --check python tests benches examples
	$(PY) -m mypy.stubtest oxtensor._core
	$(PY) tools/check_layout.py

stubs: build ## write python/oxtensor/_core.pyi (not committed) and check it with stubtest
	$(PY) -m mypy.stubtest oxtensor._core

fmt: venv ## apply rustfmt and ruff format
	cargo fmt --all
	$(VENV)/bin/ruff format $(PY_SRC)
	$(VENV)/bin/ruff check --fix $(PY_SRC)

# PyTensor 3.0.7's own test files, kept beside the project (read-only).
PYTENSOR_SUITE ?= ../shared/pytensor-suite

pytensor-suite: build ## PyTensor's own test files run against oxtensor (issue 28's measure): the table
	@# The fixtures and modules some of those files import (numba: three of them).
	$(PIP) install -q pytest-mock rich scipy numba
	PEER_PYTHON=$(abspath $(PY)) $(PYTENSOR_SUITE)/run.sh

bench: release ## benchmarks against PyTensor and JAX (installs them into .venv)
	@# A failed install only skips those comparisons; run.py says which and why.
	$(PIP) install -q -r benches/requirements.txt || echo "bench: could not install benches/requirements.txt"
	$(PY) benches/run.py

fuzz: build ## fuzz for FUZZ_MINUTES (30): the core's proptest properties and tests/test_fuzz_crash.py, in rounds
	@end=$$(( $$(date +%s) + $(FUZZ_MINUTES) * 60 )); round=0; \
	while [ $$(date +%s) -lt $$end ]; do \
		round=$$((round + 1)); echo "fuzz: round $$round"; \
		PROPTEST_CASES=$(FUZZ_CASES) cargo test -p oxtensor-core -q --lib -- proptest || exit 1; \
		HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q -p no:cacheprovider tests/test_fuzz_crash.py || exit 1; \
	done; echo "fuzz: $$round rounds in $(FUZZ_MINUTES) minutes, nothing found"

random-graphs: build ## random expressions (4,000: FAST_RUN/FAST_COMPILE x float64/float32) against NumPy
	HYPOTHESIS_PROFILE=slow $(PY) -m pytest -q -p no:randomly tests/compile/test_random_graphs.py

soak: release ## soak and concurrency figures: threads x calls, compile loops, shared updates
	$(PY) benches/soak.py

ci: lint test test-ci-matrix ## what CI runs

all: fmt ci ## format, lint and test

clean: ## remove build products and the venv
	cargo clean
	rm -rf $(VENV)
