# The two commands a new user needs (README): `make demo` and `make test`.
.PHONY: setup setup-dev demo test lint train-env

# the runtime only: what `demo` (and `run`, `serve`, `review`) need
setup:
	@scripts/setup.sh

# the runtime, the test tools, and what the tests use (chromium, a PostgreSQL server)
setup-dev:
	@scripts/setup.sh dev

demo: setup
	.venv/bin/table-monitor demo

test: setup-dev
	.venv/bin/ruff check monitor tests
	.venv/bin/mypy
	.venv/bin/pytest -q

lint: setup-dev
	.venv/bin/ruff check monitor tests
	.venv/bin/mypy

train-env:
	@scripts/setup.sh dev,train
