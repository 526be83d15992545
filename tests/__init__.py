"""The test suite: one folder a package of ``monitor/`` (see README.md)."""
