"""The rulebooks the monitor cites, in the product's own words: one YAML file per room's rulebook.

Each file names the rulebook (room and game: "Livermore Casino Pai Gow Poker") and, for every rule
the product cites, its number, a short title and what the monitor checks against it. An alert, a
rule module or a docs page cites a rule as ``(book, rule)``: ``("livermore", "32")``,
``("napa", "misdeal 3")``, ``("poker_games", "Pan rules 3, 5")``. :func:`cite` turns that into
the text a person reads and the entries it rests on; a citation no file holds is an error.

>>> c = cite("livermore", "32")
>>> c.text
'Livermore Casino Pai Gow Poker, rule 32'
>>> c.entries[0].title
'No change to a bet after "no more bets"'
>>> cite("livermore", "8, 9, 21").text
'Livermore Casino Pai Gow Poker, rules 8, 9, 21'
>>> cite("napa", "misdeal 3").href
'/rules/napa#rule-misdeal-3'
>>> parse_legacy("seed 000 rule 55").text
'Livermore Casino Pai Gow Poker, rule 55'

Rule numbers in a room's text stay the room's: a lettered part (``48a``) opens its rule (``48``),
a range (``6-9``) every rule in it. Lucky Chances deals under Livermore's numbered rules
(``same_rules_as``) and lists only what differs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

import yaml
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Citation",
    "CitationError",
    "RuleEntry",
    "Rulebook",
    "anchor",
    "book_of_seed",
    "citations_in_text",
    "cite",
    "parse_legacy",
    "rulebook",
    "rulebooks",
]

NOT_JUDGED: Final = "Not judged by the monitor"

# The seed documents (../shared/seeds/) each rulebook is written from; seed 004 holds the poker games
# and, apart, S&K Cardroom's Pai Gow description.
_SEED_BOOKS: Final = {"000": "livermore", "001": "napa", "002": "lucky_chances", "004": "poker_games"}

# "6-9", "8, 9, 21", "3 and 40", "48a": the numbers at the end of a citation.
_ITEMS: Final = re.compile(
    r"^(?P<prefix>.*?)\s*(?P<items>\d+[a-e]?(?:\s*(?:,|and|-)\s*\d+[a-e]?)*)$")
_RULE_WORD: Final = re.compile(r"\s*\brules?$")


class CitationError(ValueError):
    """A citation of a rulebook or rule the product's references do not hold."""


class RuleEntry(BaseModel):
    """One rule of a rulebook: the room's number, a short title, and what the monitor checks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: str = Field(min_length=1, description="the room's number ('32') or section ('misdeal 3', 'deal')")
    title: str = Field(min_length=1)
    checks: str = Field(min_length=1, description="what the monitor checks, in the product's words")

    @property
    def judged(self) -> bool:
        """Does the monitor check anything against this rule?"""
        return not self.checks.startswith(NOT_JUDGED)


class Rulebook(BaseModel):
    """A room's rulebook for one game, as the product cites it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1, description="room and game, e.g. 'Livermore Casino Pai Gow Poker'")
    room: str
    game: str
    source: str = Field(description="the rule document it is written from ('' for the product's own)")
    same_rules_as: str | None = Field(default=None, description="a rulebook whose numbered rules it shares")
    rules: tuple[RuleEntry, ...]

    def rule(self, number: str) -> RuleEntry | None:
        return self._index().get(number.casefold())

    def _index(self) -> dict[str, RuleEntry]:
        return {r.number.casefold(): r for r in self.rules}


@dataclass(frozen=True)
class Citation:
    """A resolved citation: the rulebook, the rule label as written and the entries it opens."""

    book: Rulebook
    label: str  # "rule 32", "rules 8, 9, 21", "misdeal 3", "deal"
    entries: tuple[RuleEntry, ...]

    @property
    def text(self) -> str:
        """'Livermore Casino Pai Gow Poker, rule 32'."""
        return f"{self.book.name}, {self.label}"

    @property
    def href(self) -> str:
        """The product's reference page at the first rule cited."""
        return f"/rules/{self.book.id}#{anchor(self.entries[0].number)}"


def anchor(number: str) -> str:
    """A rule's anchor on its reference page: '32' -> 'rule-32', "Texas Hold'em" -> 'rule-texas-holdem'."""
    slug = re.sub(r"[^a-z0-9]+", "-", number.casefold().replace("'", "")).strip("-")
    return f"rule-{slug}"


def _load(name: str) -> Rulebook:
    text = (resources.files(__package__) / name).read_text(encoding="utf-8")
    return Rulebook.model_validate(yaml.safe_load(text))


@cache
def rulebooks() -> Mapping[str, Rulebook]:
    """Every rulebook of ``monitor/rules/references/*.yaml`` by id, shared rules filled in.

    >>> list(rulebooks())
    ['livermore', 'napa', 'lucky_chances', 'poker_games', 's_and_k', 'monitor']
    """
    raw: dict[str, Rulebook] = {}
    for entry in sorted(resources.files(__package__).iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".yaml"):
            book = _load(entry.name)
            if f"{book.id}.yaml" != entry.name:
                raise CitationError(f"{entry.name}: the rulebook's id is {book.id!r}; name it {book.id}.yaml")
            raw[book.id] = book
    books: dict[str, Rulebook] = {}
    for book in raw.values():
        if book.same_rules_as is not None:
            base = raw.get(book.same_rules_as)
            if base is None or base.same_rules_as is not None:
                raise CitationError(f"{book.id}: same_rules_as {book.same_rules_as!r} is no base")
            own = {r.number for r in book.rules}
            book = book.model_copy(update={"rules": tuple(
                next(o for o in book.rules if o.number == r.number) if r.number in own else r
                for r in base.rules) + tuple(o for o in book.rules if base.rule(o.number) is None)})
        numbers = [r.number.casefold() for r in book.rules]
        if len(set(numbers)) != len(numbers):
            raise CitationError(f"{book.id}: a rule number is listed twice")
        books[book.id] = book
    # The rooms' rulebooks in the order of their documents, the product's own last.
    return dict(sorted(books.items(), key=lambda kv: (not kv[1].source, kv[1].source, kv[0])))


def rulebook(book_id: str) -> Rulebook:
    try:
        return rulebooks()[book_id]
    except KeyError:
        raise CitationError(f"no rulebook {book_id!r} (known: {', '.join(sorted(rulebooks()))})") from None


def _expand(items: str) -> list[str]:
    """'6-9, 55' -> ['6', '7', '8', '9', '55']; '48a' stays."""
    out: list[str] = []
    for part in re.split(r"\s*(?:,|\band\b)\s*", items):
        lo, sep, hi = part.partition("-")
        if sep and lo.isdigit() and hi.isdigit() and int(lo) <= int(hi):
            out.extend(str(n) for n in range(int(lo), int(hi) + 1))
        elif part:
            out.append(part)
    return out


@cache
def cite(book_id: str, rule: str) -> Citation:
    """The citation of ``rule`` in ``book_id``: display text and reference entries.

    Raises :class:`CitationError` for a rulebook or a rule the references do not hold.
    """
    book = rulebook(book_id)
    rule = " ".join(rule.split())
    m = _ITEMS.match(rule)
    if m is None:
        entry = book.rule(rule)
        if entry is None:
            raise CitationError(f"{book.name} has no {rule!r} in the product's references ({book_id}.yaml)")
        return Citation(book, entry.number, (entry,))
    written_prefix = m["prefix"].strip()
    prefix = _RULE_WORD.sub("", written_prefix).strip()
    numbers = _expand(m["items"])
    entries: list[RuleEntry] = []
    for number in numbers:
        key = f"{prefix} {number}".strip()
        entry = book.rule(key)
        if entry is None and number[-1:].isalpha():
            entry = book.rule(f"{prefix} {number[:-1]}".strip())
        if entry is None:
            raise CitationError(f"{book.name} has no rule {key!r} in the references ({book_id}.yaml)")
        if entry not in entries:
            entries.append(entry)
    items = ", ".join(p.strip() for p in re.split(r"\s*(?:,|\band\b)\s*", m["items"]))
    if not prefix:
        label = f"{'rules' if len(numbers) > 1 else 'rule'} {items}"
    elif written_prefix != prefix:
        label = f"{prefix} {'rules' if len(numbers) > 1 else 'rule'} {items}"
    else:
        label = f"{prefix} {items}"
    return Citation(book, label, tuple(entries))


def book_of_seed(seed: str, rule: str = "") -> str:
    """The rulebook id of a seed document ('000_3987c5033707fbb2.txt' or '000'); '' is the monitor's own."""
    if not seed:
        return "monitor"
    key = seed[:3]
    if key == "004" and rule.startswith("S&K"):
        return "s_and_k"
    try:
        return _SEED_BOOKS[key]
    except KeyError:
        raise CitationError(f"no rulebook is written from seed {seed!r}") from None


_LEGACY: Final = re.compile(r"^seed (?P<seed>\d{3}) (?:rules? )?(?P<rule>.+)$")


def parse_legacy(text: str) -> Citation:
    """Read a citation as alerts wrote it before rulebook names: 'seed 000 rule 55', 'seed 001 misdeal 3',
    'monitor: device'. A text that already names a rulebook ('Livermore Casino Pai Gow Poker, rule 55')
    is read as well."""
    text = " ".join(text.split())
    if text.startswith("monitor: "):
        return cite("monitor", text.removeprefix("monitor: "))
    m = _LEGACY.match(text)
    if m is not None:
        return cite(book_of_seed(m["seed"], m["rule"]), m["rule"])
    for book in rulebooks().values():
        if text.startswith(f"{book.name}, "):
            return cite(book.id, text.removeprefix(f"{book.name}, "))
    raise CitationError(f"{text!r} is no citation of a known rulebook")


# A numbered citation of a seed document in code or docs: "seed 000 rule 55", "seed 000 rules 3 and 40",
# "seed 001 misdeal 4", "seed 004 Pan rule 5", "seed 004 Hold'em order of play 1-5".
_IN_TEXT: Final = re.compile(
    r"\bseed (?P<seed>\d{3})(?: (?:Hold'em )?(?P<prefix>Pan|misdeal|foul|order of play))? "
    r"(?:rules? )?(?P<items>\d+[a-e]?(?:(?:, | and |-)\d+[a-e]?)*)\b")
# The same by the rulebook's short name, as comments cite: "Livermore rule 55", "Livermore rules 3, 40",
# "Lucky Chances rule 47", "Napa misdeal 4", "Poker Games Pan rule 5", "Poker Games Hold'em order of play
# 1-5". A number is read only after "rule(s)" or a numbered list's name.
_SHORT_NAMES: Final = {"Livermore": "livermore", "Lucky Chances": "lucky_chances", "Napa": "napa",
                       "Poker Games": "poker_games"}
_NAMED_IN_TEXT: Final = re.compile(
    r"\b(?P<book>Livermore|Lucky Chances|Napa|Poker Games)(?: (?:Hold'em )?(?P<prefix>Pan|misdeal|foul|"
    r"order of play))?(?P<word> rules?)? (?P<items>\d+[a-e]?(?:(?:, | and |-)\d+[a-e]?)*)\b")


def citations_in_text(text: str) -> Iterator[tuple[str, str]]:
    """Every numbered citation in ``text``, of a seed document or of a rulebook by its short name, as
    ``(book, rule)``, for checking that each resolves."""
    for m in _IN_TEXT.finditer(text):
        prefix = m["prefix"] or ""
        yield book_of_seed(m["seed"]), f"{prefix} {m['items']}".strip()
    for m in _NAMED_IN_TEXT.finditer(text):
        if m["prefix"] or m["word"]:
            prefix = m["prefix"] or ""
            yield _SHORT_NAMES[m["book"]], f"{prefix} {m['items']}".strip()
