"""The rule references as pages: ``docs/rules.md`` and the HTML pages the console links citations to.

Both are generated from the YAML files, so what an alert cites, what the page shows and what the
docs list is one text. ``python -m monitor.rules.references > docs/rules.md`` writes the docs page
(a test checks that it matches).
"""

from __future__ import annotations

from html import escape

from monitor.rules.references import Rulebook, anchor, rulebooks

_NOTE = ("Every alert cites the room's rulebook by name and rule number (\"Livermore Casino Pai Gow "
         "Poker, rule 32\"). These are the product's references for those rules: each rule's number in "
         "the room's text, a short title, and what the monitor checks against it, in the product's own "
         "words (the rooms' texts are the specification; they are not reproduced here). A table's profile "
         "names its rulebook (`rulebook: lucky_chances`); the console links each citation to its rule on "
         "the server's `/rules/<rulebook>` page, and `GET /api/v1/rules/<rulebook>/<number>` answers the "
         "same entry as JSON.")


def doc_anchor(book_id: str, number: str) -> str:
    """A rule's anchor in docs/rules.md: 'livermore-rule-55'."""
    return f"{book_id}-{anchor(number)}"


def _source(book: Rulebook) -> str:
    if not book.source:
        return "the product's own rules"
    shared = f"; the numbered rules of {rulebooks()[book.same_rules_as].name}" if book.same_rules_as else ""
    return f"written from `{book.source}`{shared}"


def markdown() -> str:
    """docs/rules.md: every rulebook and every rule with what the product checks."""
    books = list(rulebooks().values())
    lines = [
        "<!-- Generated from monitor/rules/references/*.yaml by "
        "`python -m monitor.rules.references > docs/rules.md`; edit the YAML, not this page. -->",
        "",
        "# Rules the monitor cites",
        "",
        _NOTE,
        "",
        "| rulebook | id | room | game | rules |",
        "| --- | --- | --- | --- | --- |",
    ]
    for book in books:
        n = len(book.rules)
        lines.append(f"| [{book.name}](#{book.id}) | `{book.id}` | {book.room} | {book.game} | {n} |")
    for book in books:
        judged = sum(r.judged for r in book.rules)
        lines += [
            "",
            f'<a id="{book.id}"></a>',
            "",
            f"## {book.name}",
            "",
            f"`{book.id}`, {_source(book)}. The monitor checks {judged} of these {len(book.rules)} rules.",
            "",
            "| rule | title | what the monitor checks |",
            "| --- | --- | --- |",
        ]
        lines += [f'| <a id="{doc_anchor(book.id, r.number)}"></a>{r.number} | {r.title} | {r.checks} |'
                  for r in book.rules]
    return "\n".join(lines) + "\n"


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<title>{escape(title)}</title>\n<link rel="icon" href="data:,">\n'
        '<link rel="stylesheet" href="/static/style.css">\n</head>\n'
        f'<body class="reference">\n<main>\n{body}\n</main>\n</body>\n</html>\n'
    )


def index_html() -> str:
    """/rules: the rulebooks."""
    items = "\n".join(
        f'<li><a href="/rules/{escape(b.id)}">{escape(b.name)}</a> '
        f'<span class="muted">{len(b.rules)} rules</span></li>' for b in rulebooks().values())
    body = (f'<h1>Rules the monitor cites</h1>\n<p class="muted">{escape(_NOTE.replace("`", ""))}</p>\n'
            f"<ul>\n{items}\n</ul>")
    return _page("Rules the monitor cites", body)


def book_html(book: Rulebook) -> str:
    """/rules/{book}: one rulebook, each rule at its anchor ('#rule-32')."""
    muted = ' class="muted"'
    rows = "\n".join(
        f'<tr id="{anchor(r.number)}"{"" if r.judged else muted}>'
        f"<th>{escape(r.number)}</th><td>{escape(r.title)}</td><td>{escape(r.checks)}</td></tr>"
        for r in book.rules)
    body = (f'<p><a href="/rules">All rulebooks</a> · <a href="/">Console</a></p>\n'
            f"<h1>{escape(book.name)}</h1>\n"
            f'<p class="muted">{escape(book.room)}; {escape(book.game)}. '
            f"{escape(_source(book).replace('`', ''))}.</p>\n"
            '<table class="grid rules">\n<thead><tr><th>Rule</th><th>Title</th>'
            f"<th>What the monitor checks</th></tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>")
    return _page(book.name, body)
