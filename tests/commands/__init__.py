"""Tests of monitor/commands/."""
