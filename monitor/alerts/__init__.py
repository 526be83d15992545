"""Alerts: the Alert model (monitor.alerts.model) and the catalog of faults (monitor.alerts.catalog)."""
