"""Tests of monitor/events/."""
