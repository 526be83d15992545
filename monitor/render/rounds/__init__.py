"""Scripted rounds: a YAML script of the dealer's actions -> animated video, per-frame ground truth,
the true event stream and the alerts the rules must raise (docs/rounds.md)."""
