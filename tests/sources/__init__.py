"""Tests of monitor/sources/."""
