"""Tests of monitor/layout/."""
