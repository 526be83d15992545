"""Tests of monitor/rules/."""
