"""A setting read only in part: every way its unread cards could complete it.

Vision reads an opened hand card by card, and on an unfamiliar deck it often knows a card's rank but
not its suit (the ace of spades read as the ace of clubs), or nothing of a card half covered. Seed
000 rule 50a (the two-card hand must not beat the five-card hand) can still be settled: the setting
is surely foul when every completion of what was read is foul. Suits matter to a Pai Gow hand only
through flushes (the two-card hand has none), so when the five-card hand cannot be a flush (two of
its read suits differ) a rank-only card stands for any card of its rank, and an unread card for any
rank or the joker; when it can, nothing is concluded (a flush beats every two-card hand). The ink's
colour settles that as well as a suit: a red card and a black card in the five-card hand are of two
suits, and colour reads where the suit does not (the suit sign is ~4 px at 1080p; red against black
is seldom in doubt).

A card read only to its rank ``J`` may also be the joker: a deck's joker is often a jester, and read
by its corner it passes for a jack (the held-out deck's joker read `J` at 0.69, a false foul in the
hundred clean rounds). It is judged both ways, as the joker is left (one in the deck).

A card is given as its text (``As``), its rank alone (``A``), or None (unread); the five-card hand's
colours, where given, as ``red``, ``black`` or None per card.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from monitor.rules.cards import INK, JOKER_TEXT, RANK_CHARS, SUIT_CHARS

Partial = str | None
Colour = str | None  # "red", "black", or None (not read)
MAX_UNREAD = 2  # 14 ** 2 completions at most: cheap enough to judge on every opened hand
JACK = "J"  # a card read only to this rank may be the joker (a jester)


def flush_possible(back: Sequence[Partial], colours: Sequence[Colour] | None = None) -> bool:
    """Whether the five-card hand could be a flush: the suits read there (the joker completes a flush,
    Livermore rule 40) are all one, or none were read, and the inks read there (``colours``, one per
    card, or None) are all one."""
    suits = {c[1] for c in back if c is not None and len(c) == 2 and c != JOKER_TEXT}
    inks = {INK[s] for s in suits} | {c for c in colours or () if c is not None}
    return len(suits) <= 1 and len(inks) <= 1


def completions(front: Sequence[Partial], back: Sequence[Partial], max_unread: int = MAX_UNREAD,
                colours: Sequence[Colour] | None = None) -> Iterator[tuple[list[str], list[str]]] | None:
    """Every completion (front texts, back texts) of a partly read setting with no flush possible in
    the five-card hand (``colours``: its cards' inks, where read), suits chosen freely (they cannot
    matter then); None when the setting cannot be judged that way (a flush is possible, more than
    ``max_unread`` unread cards, or a card named twice: a duplicate is a fault of its own, rule 60)."""
    cards = [*front, *back]
    named = [c for c in cards if c is not None and len(c) == 2]
    if len(set(named)) != len(named) or flush_possible(back, colours):
        return None
    unread = [i for i, c in enumerate(cards) if c is None]
    if len(unread) > max_unread:
        return None
    jacks = [i for i, c in enumerate(cards) if c == JACK]
    return _complete(cards, unread, jacks, len(front), set(named))


def _complete(cards: list[Partial], unread: list[int], jacks: list[int], n_front: int, named: set[str]
              ) -> Iterator[tuple[list[str], list[str]]]:
    choices = [*RANK_CHARS, JOKER_TEXT]
    jokers_left = 0 if JOKER_TEXT in named else 1  # one joker in the deck (Livermore rule 1)
    for pick in product(choices, repeat=len(unread)):
        for maybe in product((JACK, JOKER_TEXT), repeat=len(jacks)):
            if pick.count(JOKER_TEXT) + maybe.count(JOKER_TEXT) > jokers_left:
                continue
            ranks = list(cards)
            for i, r in (*zip(unread, pick, strict=True), *zip(jacks, maybe, strict=True)):
                ranks[i] = r
            filled = _with_suits(ranks, named)
            if filled is not None:
                yield filled[:n_front], filled[n_front:]


def _with_suits(ranks: list[Partial], named: set[str]) -> list[str] | None:
    """Each rank-only card given a suit no other card of the setting has (None: no such card left)."""
    used = set(named)
    out: list[str] = []
    for c in ranks:
        assert c is not None  # filled by the caller
        if len(c) == 2:  # named, or the joker picked for an unread card
            out.append(c)
            continue
        text = next((c + s for s in SUIT_CHARS if c + s not in used), None)
        if text is None:
            return None
        used.add(text)
        out.append(text)
    return out
