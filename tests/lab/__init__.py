"""Tests of monitor/lab/."""
