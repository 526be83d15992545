"""Tests of monitor/perception/."""
