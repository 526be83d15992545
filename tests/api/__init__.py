"""Tests of monitor/api/."""
