"""Rule references: every citation in the catalog, the code and the docs opens a rule of a named rulebook."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from monitor.alerts.catalog import CATALOG, for_rulebook
from monitor.alerts.model import Alert, RuleRef, Severity
from monitor.procedure.alerting import AlertSink
from monitor.rules.profile import LUCKY_CHANCES, NAPA, PaiGowProfile
from monitor.rules.references import (
    CitationError,
    anchor,
    book_of_seed,
    citations_in_text,
    cite,
    parse_legacy,
    rulebook,
    rulebooks,
)
from monitor.rules.references.pages import book_html, doc_anchor, index_html, markdown
from tests.support.paths import DOCS, ROOT, SEEDS


def test_each_rulebook_names_its_room_and_game() -> None:
    books = rulebooks()
    assert books["livermore"].name == "Livermore Casino Pai Gow Poker"
    assert books["lucky_chances"].name == "Lucky Chances Casino Pai Gow Poker"
    assert books["napa"].name == "Napa Valley Casino Pai Gow Poker"
    assert books["s_and_k"].name == "S & K Cardroom Pai Gow Poker"
    for book in books.values():
        assert book.rules, book.id
        assert book.source == "" or re.fullmatch(r"\d{3}_[0-9a-f]{16}\.txt", book.source), book.source


def test_livermore_holds_all_63_numbered_rules_and_lucky_chances_shares_them() -> None:
    livermore, lucky = rulebook("livermore"), rulebook("lucky_chances")
    numbers = [r.number for r in livermore.rules if r.number.isdigit()]
    assert numbers == [str(n) for n in range(1, 64)]
    assert [r.number for r in lucky.rules] == [r.number for r in livermore.rules]
    assert lucky.rule("55") == livermore.rule("55")
    ranking = lucky.rule("ranking")
    assert ranking is not None and ranking != livermore.rule("ranking") and "ties_royal" in ranking.checks


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the rule documents are not beside the checkout")
def test_rulebook_names_are_the_rooms_in_their_documents() -> None:
    for book in rulebooks().values():
        if book.source:
            text = (SEEDS / book.source).read_text(encoding="utf-8").casefold()
            room = book.room.split(",")[0].casefold()
            if book.id != "poker_games":
                assert room in text, (book.id, room)


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the rule documents are not beside the checkout")
def test_references_are_written_in_the_products_words() -> None:
    """No reference text copies a run of ten words of its rule document."""
    for book in rulebooks().values():
        if not book.source:
            continue
        words = re.findall(r"[a-z0-9']+", (SEEDS / book.source).read_text(encoding="utf-8").casefold())
        shingles = {" ".join(words[i:i + 10]) for i in range(len(words) - 9)}
        for entry in book.rules:
            ours = re.findall(r"[a-z0-9']+", f"{entry.title} {entry.checks}".casefold())
            runs = (" ".join(ours[i:i + 10]) for i in range(len(ours) - 9))
            copied = [run for run in runs if run in shingles]
            assert not copied, (book.id, entry.number, copied[0])


@pytest.mark.parametrize(("book", "rule", "text", "entries"), [
    ("livermore", "32", "Livermore Casino Pai Gow Poker, rule 32", ["32"]),
    ("livermore", "48a", "Livermore Casino Pai Gow Poker, rule 48a", ["48"]),
    ("livermore", "8, 9, 21", "Livermore Casino Pai Gow Poker, rules 8, 9, 21", ["8", "9", "21"]),
    ("livermore", "3 and 40", "Livermore Casino Pai Gow Poker, rules 3, 40", ["3", "40"]),
    ("livermore", "6-9, 55", "Livermore Casino Pai Gow Poker, rules 6-9, 55", ["6", "7", "8", "9", "55"]),
    ("napa", "misdeal 3", "Napa Valley Casino Pai Gow Poker, misdeal 3", ["misdeal 3"]),
    ("napa", "foul 1-3", "Napa Valley Casino Pai Gow Poker, foul 1-3", ["foul 1", "foul 2", "foul 3"]),
    ("poker_games", "Pan rules 3, 5", "Cardroom Poker Games, Pan rules 3, 5", ["Pan 3", "Pan 5"]),
    ("poker_games", "deal", "Cardroom Poker Games, deal", ["deal"]),
    ("monitor", "event contract", "Table monitor, event contract", ["event contract"]),
])
def test_a_citation_reads_as_rulebook_and_rule(book: str, rule: str, text: str, entries: list[str]) -> None:
    c = cite(book, rule)
    assert c.text == text
    assert [e.number for e in c.entries] == entries
    assert c.href == f"/rules/{book}#{anchor(entries[0])}"


@pytest.mark.parametrize(("book", "rule"), [
    ("livermore", "64"), ("livermore", "48z"), ("napa", "misdeal 9"), ("poker_games", "Pan 9"),
    ("livermore", "a rule"), ("nowhere", "1"),
])
def test_an_unknown_citation_is_an_error(book: str, rule: str) -> None:
    with pytest.raises(CitationError):
        cite(book, rule)


def test_stored_seed_citations_still_read() -> None:
    assert parse_legacy("seed 000 rule 55").text == "Livermore Casino Pai Gow Poker, rule 55"
    assert parse_legacy("seed 002 rule 55").text == "Lucky Chances Casino Pai Gow Poker, rule 55"
    assert parse_legacy("seed 001 misdeal 4").text == "Napa Valley Casino Pai Gow Poker, misdeal 4"
    assert parse_legacy("seed 004 Pan rules 3, 5").entries[1].number == "Pan 5"
    assert parse_legacy("monitor: device").text == "Table monitor, device"
    assert parse_legacy("Livermore Casino Pai Gow Poker, rules 49, 50").label == "rules 49, 50"
    assert book_of_seed("004_de25eb682010f199.txt", "S&K rotation") == "s_and_k"
    with pytest.raises(CitationError):
        parse_legacy("seed 009 rule 1")
    with pytest.raises(CitationError):
        parse_legacy("rule 55")


def test_every_catalog_rule_opens_its_reference() -> None:
    for entry in CATALOG.values():
        for ref in (entry.rule, *entry.related):
            c = ref.reference()
            assert ref.cited == c.text and ref.book == c.book.id, entry.code
            assert c.book.name in ref.display
            assert parse_legacy(ref.citation) == c, entry.code  # the stored key reads back to the same rule
            assert all(e.judged for e in c.entries), (entry.code, [e.number for e in c.entries])


def _product_texts() -> list[Path]:
    monitor = ROOT / "monitor"
    return sorted([*monitor.rglob("*.py"), *monitor.rglob("*.yaml"), *DOCS.glob("*.md"),
                   ROOT / "README.md"])


def test_every_seed_citation_in_code_and_docs_opens_a_rule() -> None:
    found: dict[tuple[str, str], str] = {}
    for path in _product_texts():
        for book, rule in citations_in_text(path.read_text(encoding="utf-8")):
            found.setdefault((book, rule), str(path.relative_to(ROOT)))
    assert len(found) > 40  # the walk sees the code's citations (a broken pattern would see none)
    unknown = []
    for (book, rule), where in sorted(found.items()):
        try:
            cite(book, rule)
        except CitationError as exc:
            unknown.append(f"{where}: {exc}")
    assert not unknown, "\n".join(unknown)


def test_citations_in_text_finds_the_forms_the_code_writes() -> None:
    text = ("(seed 000 rule 55) seed 000 rules 3 and 40, seed 001 misdeal 4; seed 004 Pan rule 5 and "
            "seed 004 Hold'em order of play 1-5.")
    assert list(citations_in_text(text)) == [
        ("livermore", "55"), ("livermore", "3 and 40"), ("napa", "misdeal 4"), ("poker_games", "Pan 5"),
        ("poker_games", "order of play 1-5")]
    named = ("(Livermore rule 55) Livermore rules 3, 40; Lucky Chances rule 47, Napa misdeal 4, "
             "Poker Games Pan rule 5 and Poker Games Hold'em order of play 1-5; "
             "not Livermore Casino or Napa 1, 8 or 15.")
    assert list(citations_in_text(named)) == [
        ("livermore", "55"), ("livermore", "3, 40"), ("lucky_chances", "47"), ("napa", "misdeal 4"),
        ("poker_games", "Pan 5"), ("poker_games", "order of play 1-5")]


def test_an_alert_stored_without_a_rulebook_reads_with_one() -> None:
    old = {"seed": "000_3987c5033707fbb2.txt", "rule": "32", "text": "no bet changes after the call"}
    ref = RuleRef.model_validate(old)
    assert ref.book == "livermore" and ref.cited == "Livermore Casino Pai Gow Poker, rule 32"
    unknown = RuleRef.model_validate({**old, "rule": "99"})  # stored, but no reference holds it
    assert unknown.cited == "" and unknown.display == "seed 000 rule 99"
    alert = Alert(id="a" * 24, code="bet_changed_after_close", table_id="T1", rule=ref,
                  severity=Severity.INTEGRITY, message="seat 2 changed the bet")
    assert alert.one_line == "[integrity] Livermore Casino Pai Gow Poker, rule 32: seat 2 changed the bet"
    assert Alert.model_validate(alert.model_dump(mode="json")) == alert


def test_the_tables_rulebook_is_cited_where_it_shares_the_numbers() -> None:
    stub = CATALOG["stub_not_four"].rule
    lucky = for_rulebook(stub, "lucky_chances")
    assert lucky.cited == "Lucky Chances Casino Pai Gow Poker, rule 55"
    assert lucky.citation == "seed 002 rule 55"
    assert for_rulebook(stub, "napa") == stub  # Napa's text has no rule 55: Livermore's stays cited
    assert for_rulebook(stub, None) == stub
    sink = AlertSink("T9", rulebook=LUCKY_CHANCES.rulebook)
    alert = sink.raise_alert("pile_to_wrong_seat", "p1", [], game=None, round_id="r1",
                             facts={"pile": 1, "seat": 3, "total": 9, "count_rule": "banker is 1",
                                    "expected": 2})
    assert alert is not None
    assert alert.rule.cited == "Lucky Chances Casino Pai Gow Poker, rules 8, 9, 21"
    assert [r.cited for r in alert.related_rules] == ["Napa Valley Casino Pai Gow Poker, misdeal 4"]


def test_a_profile_names_a_known_rulebook() -> None:
    assert PaiGowProfile().rulebook == "livermore" and NAPA.rulebook == "napa"
    with pytest.raises(ValueError, match="no rulebook 'atlantis'"):
        PaiGowProfile(rulebook="atlantis")


def test_docs_rules_md_is_generated_from_the_references() -> None:
    page = (DOCS / "rules.md").read_text(encoding="utf-8")
    assert page == markdown(), "regenerate: python -m monitor.rules.references > docs/rules.md"
    for book in rulebooks().values():
        assert f"## {book.name}" in page
        for entry in book.rules:
            cell = f'<a id="{doc_anchor(book.id, entry.number)}"></a>{entry.number}'
            assert f"| {cell} | {entry.title} | {entry.checks} |" in page


def test_reference_pages_hold_every_rule_at_its_anchor() -> None:
    livermore = rulebook("livermore")
    html = book_html(livermore)
    for entry in livermore.rules:
        assert f'id="{anchor(entry.number)}"' in html
    assert "<h1>Livermore Casino Pai Gow Poker</h1>" in html
    assert "S &amp; K Cardroom Pai Gow Poker" in index_html()  # escaped
    assert all(f'href="/rules/{b}"' in index_html() for b in rulebooks())


def test_the_event_docs_cite_every_alert_by_rulebook_with_a_link() -> None:
    events = (DOCS / "events.md").read_text(encoding="utf-8")
    for entry in CATALOG.values():
        row = next((ln for ln in events.splitlines() if ln.startswith(f"| `{entry.code}` |")), None)
        assert row is not None, entry.code
        for ref in (entry.rule, *entry.related):
            link = f"[{ref.cited}](rules.md#{doc_anchor(ref.book, ref.reference().entries[0].number)})"
            assert link in row, (entry.code, link)


def test_every_link_into_the_rule_reference_lands_on_a_rule() -> None:
    reference = (DOCS / "rules.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', reference))
    links = []
    for path in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        for target in re.findall(r"\]\((?:docs/)?rules\.md#([^)]+)\)", path.read_text(encoding="utf-8")):
            links.append((path.name, target))
    assert len(links) > 40  # the catalog table alone links every alert's rule
    assert [(name, t) for name, t in links if t not in anchors] == []
