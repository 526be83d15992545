"""Tests of monitor/rules/games/."""
