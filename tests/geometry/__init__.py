"""Tests of monitor/geometry/."""
