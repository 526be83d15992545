"""Tests of monitor/procedure/."""
