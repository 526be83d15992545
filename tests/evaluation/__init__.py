"""Tests of monitor/evaluation/."""
