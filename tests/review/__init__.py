"""Tests of monitor/review/."""
