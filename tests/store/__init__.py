"""Tests of monitor/store/."""
