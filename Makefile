# Shorthands where make is installed; the README's two commands are scripts/demo.sh and scripts/test.sh,
# which a fresh Debian (no make) runs as they are.
.PHONY: setup setup-dev demo test lint train-env

# the runtime only: what `demo` (and `run`, `serve`, `review`) need
setup:
	@scripts/setup.sh

# the runtime, the test tools, and what the tests use (chromium, a PostgreSQL server)
setup-dev:
	@scripts/setup.sh dev

demo:
	@scripts/demo.sh

test:
	@scripts/test.sh

lint: setup-dev
	.venv/bin/ruff check monitor tests
	.venv/bin/mypy

train-env:
	@scripts/setup.sh dev,train
