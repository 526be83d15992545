"""Tests of monitor/rules/paigow/."""
