# The two commands a new user needs (README): `make demo` and `make test`.
.PHONY: setup demo test lint train-env

setup:
	@scripts/setup.sh dev

demo: setup
	.venv/bin/table-monitor demo

test: setup
	.venv/bin/ruff check monitor tests
	.venv/bin/mypy
	.venv/bin/pytest -q

lint: setup
	.venv/bin/ruff check monitor tests
	.venv/bin/mypy

train-env:
	@scripts/setup.sh dev,train
