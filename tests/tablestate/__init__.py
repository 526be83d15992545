"""Tests of monitor/tablestate/."""
