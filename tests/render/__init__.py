"""Tests of monitor/render/."""
