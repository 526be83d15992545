"""Markdown tables for the model card, generated from the metrics JSON (so the card never drifts)."""

from __future__ import annotations

import math
from typing import Any

from monitor.perception.labels import CRITICAL_RANK_PAIRS


def _f(x: float, digits: int = 4) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def cards_report(result: dict[str, Any], splits: tuple[str, ...]) -> str:
    weights = ""
    if "weights" in result:
        weights = (f"Members {', '.join(result['members'])} weighted "
                   f"{', '.join(f'{w:g}' for w in result['weights'])}; ")
    turn = ""
    if result.get("turn_aspect"):
        turn = (f" Quads with short/long side {result['turn_aspect']:g} or squarer read turned 90 degrees too"
                f" ({result.get('aspects_known', 0)} crops' aspects known from their manifests).")
    cascade = ""
    if result.get("cascade"):
        c = result["cascade"]
        members = result.get("members", [])
        first = ", ".join(members[k] if k < len(members) else f"member {k}" for k in c["first"])
        cascade = (f" First pass: {first} alone decides the crops it reads {c['threshold']:g} sure or more "
                   f"(its temperature {c['temperature']:.3f}); the other members read the rest.")
    lines = [
        f"{weights}Temperature {result['temperature']:.3f}, unknown-threshold {result['threshold']:.3f} "
        f"(fitted on val).{turn}{cascade}",
        "",
        "| split | crops | top-1 | accepted (not unknown) | false identity (accepted and wrong, of all) "
        "| accuracy when accepted | ECE | rank only (not named, rank read) | false rank (of all) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in ("val", *splits):
        if s not in result:
            continue
        m = result[s]
        lines.append(f"| {s} | {m['n']} | {_f(m['top1'])} | {_f(m['accepted_share'])} | "
                     f"{_f(m['false_identity_rate'])} | {_f(m['accuracy_when_accepted'])} | {_f(m['ece'])} | "
                     f"{_f(m.get('rank_read_share', float('nan')))} | "
                     f"{_f(m.get('false_rank_rate', float('nan')))} |")
    for s in splits:
        if s not in result:
            continue
        m = result[s]
        crit = m["critical"]
        pairs = ", ".join(f"{a}->{b}: {crit[f'{a}->{b}']}, {b}->{a}: {crit[f'{b}->{a}']}"
                          for a, b in CRITICAL_RANK_PAIRS)
        lines += ["", f"**{s}**: confusions that matter (top-1, before the threshold): {pairs}; "
                  f"joker read as another card: {crit.get('joker->other', 0)}, "
                  f"another card read as the joker: {crit.get('other->joker', 0)}.", ""]
        worst = ", ".join(f"{a}->{b} x{n}" for a, b, n in m["worst_confusions"]) or "none"
        lines.append(f"Most frequent confusions: {worst}.")
        lines += ["", "| class | precision | recall | n " * 3 + "|", "| --- | ---: | ---: | ---: " * 3 + "|"]
        items = list(m["per_class"].items())
        rows = math.ceil(len(items) / 3)
        for r in range(rows):
            cells = []
            for c in range(3):
                i = r + c * rows
                if i < len(items):
                    k, v = items[i]
                    cells.append(f"{k} | {_f(v['precision'], 3)} | {_f(v['recall'], 3)} | {v['support']}")
                else:
                    cells.append(" | | | ")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
