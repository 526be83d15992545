"""Tests of monitor/calibration/."""
