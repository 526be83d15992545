"""Outgoing alerts: a transactional outbox and one delivery worker per webhook target."""
