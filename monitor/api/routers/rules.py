"""The rulebooks alerts cite, from the product's references (``monitor/rules/references/``).

``/api/v1/rules...`` answers JSON to token holders, as every data route does. ``/rules`` and
``/rules/{book}`` are the reference pages an alert's citation links to: documentation of the product,
served like the page's static files (no table data in them).
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import HTMLResponse

from monitor.api.deps import AUTH_ERRORS, NOT_FOUND, Reader
from monitor.api.schemas import RulebookOut, RuleOut
from monitor.rules.references import CitationError, Rulebook, cite, rulebook, rulebooks
from monitor.rules.references.pages import book_html, index_html

router = APIRouter(tags=["rules"], responses=AUTH_ERRORS)

_CACHE = {"Cache-Control": "public, max-age=3600"}


def _book(book_id: str) -> Rulebook:
    try:
        return rulebook(book_id)
    except CitationError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None


@router.get("/api/v1/rules", response_model=list[RulebookOut], summary="Every rulebook the alerts cite")
def list_rulebooks(_: Reader) -> list[RulebookOut]:
    return [RulebookOut.of(b) for b in rulebooks().values()]


@router.get("/api/v1/rules/{book_id}", response_model=RulebookOut, responses=NOT_FOUND,
            summary="One rulebook: its name and every rule the product cites, with what it checks")
def get_rulebook(_: Reader, book_id: str) -> RulebookOut:
    return RulebookOut.of(_book(book_id))


@router.get("/api/v1/rules/{book_id}/{number}", response_model=RuleOut, responses=NOT_FOUND,
            summary="One rule ('32', '48a', 'misdeal 3'): its title and what the product checks")
def get_rule(_: Reader, book_id: str, number: str) -> RuleOut:
    book = _book(book_id)
    try:
        entry = cite(book.id, number).entries[0]
    except CitationError as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
    return RuleOut.of(book, entry)


@router.get("/rules", include_in_schema=False)
def rules_index() -> HTMLResponse:
    return HTMLResponse(index_html(), headers=_CACHE)


@router.get("/rules/{book_id}", include_in_schema=False)
def rules_page(book_id: str) -> HTMLResponse:
    return HTMLResponse(book_html(_book(book_id)), headers=_CACHE)
