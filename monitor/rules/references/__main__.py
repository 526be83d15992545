"""``python -m monitor.rules.references``: print docs/rules.md, generated from the rule references."""

from __future__ import annotations

import sys

from monitor.rules.references.pages import markdown

sys.stdout.write(markdown())
