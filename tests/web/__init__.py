"""Tests of monitor/web/."""
