"""Tests of monitor/training/."""
