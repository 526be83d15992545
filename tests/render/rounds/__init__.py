"""Tests of monitor/render/rounds/."""
