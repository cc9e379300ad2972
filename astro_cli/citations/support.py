"""Does a passage support a claim? The cheap check: numbers, names and key terms, no model call.

A claim is supported by a passage when every quantity it states is in the passage (agree.py: the
value after unit conversion, within the claim's precision, with its uncertainty and range), every
designation it names is there (names.py: `XO-2b` in a row of `XO-2`, `GJ 436b` as `Gl 436b`, `α` as
`alpha`), and enough of its key terms are (stems, accents and case ignored). A claim citing several
passages by handle is checked against them together. A table (cells between `|`) has numbers and
names rather than words: a claim naming an object and stating quantities of that object's row is
supported by it, and unsupported when that row does not hold them (another row's number). A number or a name the passage lacks makes it unsupported; a passage that shares
few of its words does too. What lies between is undecided: the optional model judge (judge.py)
decides it, or it is reported unverified ("could not be confirmed"), never supported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from astro_cli.citations.agree import Stated, check_quantity, combined, stated_in
from astro_cli.citations.bands import band_reason
from astro_cli.citations.best_fit import best_fit_reason
from astro_cli.citations.binding import unbound
from astro_cli.citations.bounds import bound_reason
from astro_cli.citations.claims import Claim
from astro_cli.citations.columns import column_reason
from astro_cli.citations.counts import as_figures, presupposed
from astro_cli.citations.credited import credit_reason
from astro_cli.citations.dates import date_reason
from astro_cli.citations.headers import header_reason, header_stated
from astro_cli.citations.in_order import in_order_reason
from astro_cli.citations.names import named_in, rows_of, squash
from astro_cli.citations.owners import owner_reason
from astro_cli.citations.planets import planet_cells, planet_words, row_fits, split_planet
from astro_cli.citations.pointers import pointer_reason
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.rates import rate_reason
from astro_cli.citations.releases import release_reason
from astro_cli.citations.respectively import respectively_reason
from astro_cli.citations.row_labels import row_label_reason
from astro_cli.citations.subscripts import named_symbols
from astro_cli.citations.terms import key_terms
from astro_cli.citations.together import apart_reason
from astro_cli.citations.wording import word_verdict

SUPPORTED_TERMS = 0.5  # share of the claim's key terms a supporting passage must have
UNRELATED_TERMS = 0.2  # below this share the passage is about something else
FEW_TERMS = 2  # a claim with no more key terms than this, and two quantities with units, is decided by its numbers


@dataclass(frozen=True)
class Verdict:
    """`supported`, `unsupported` or `undecided`, and why (for the researcher)."""

    status: str
    reason: str = ""
    score: float = 0.0


@lru_cache(maxsize=512)
def _passage_facts(text: str) -> tuple[set[str], str]:
    plain = text.replace("−", "-").replace("\u2009", " ").replace("\u00a0", " ")
    return key_terms(plain), squash(plain)


def data_stated(texts: list[str]) -> Stated:
    """The quantities of non-literature tool results (files, tables, catalogues), as one index."""
    return combined(tuple(stated_in(t) for t in texts)) if texts else Stated(())


def all_stated(claim: Claim, stated: Stated) -> bool:
    """Whether every quantity of a claim is in `stated`."""
    return bool(stated.items) and all(check_quantity(q, stated) is None for q in claim.quantities)


def check_support(claim: Claim, passage: str, stated: Stated | None = None) -> Verdict:
    """The verdict of one passage (or the union of the passages a claim cites, joined)."""
    verdict = _numbers_names_terms(claim, passage, stated)
    # stop 54 (wording.py): what would be supported may still turn a comparison, a negation or a name around
    worded = word_verdict(claim, passage) if verdict.status == "supported" else None
    return verdict if worded is None else Verdict(worded[0], worded[1], verdict.score)


def _numbers_names_terms(claim: Claim, passage: str, stated: Stated | None) -> Verdict:
    terms, squashed = _passage_facts(passage)
    stated = stated if stated is not None else stated_in(passage)
    missing = [why for q in claim.quantities if (why := check_quantity(q, stated)) is not None
               and not _in_subscript(q, claim, passage) and check_quantity(q, _scaled_cells(passage)) is not None
               and check_quantity(q, header_stated(passage)) is not None
               and not presupposed(q, claim.text, passage) and not as_figures(q, passage)]
    missing += [why for q in claim.quantities if (why := header_reason(q, stated, passage)) is not None]
    if missing:
        return Verdict("unsupported", "; ".join(missing))
    absent = [n for n in claim.names if not named_in(n, passage, squashed)]
    if absent:
        return Verdict("unsupported", f"{', '.join(absent)} is not named in the passage")
    release = release_reason(claim.text, passage)
    if release is not None:
        return Verdict("unsupported", release)
    other = (unbound(claim, passage) or bound_reason(claim, passage, stated) or owner_reason(claim, passage, stated)
             or row_label_reason(claim.quantities, claim.text, passage) or apart_reason(claim, passage)
             or band_reason(claim, passage) or respectively_reason(claim, passage)
             or best_fit_reason(claim, passage)
             or in_order_reason(claim, passage)
             or pointer_reason(claim, passage)
             or rate_reason(claim, passage)
             if claim.quantities else None) or credit_reason(claim, passage)
    other = other or date_reason(claim, passage)
    if other is not None:
        return Verdict("unsupported", other)
    if claim.quantities and passage.count("|") >= 5:
        row = _planet_verdict(claim, passage) or (_row_verdict(claim, passage) if claim.names else None)
        if row is not None:
            return row
    text = claim.text
    for a, b in sorted(claim.spans, reverse=True):
        text = text[:a] + " " + text[b:]
    wanted = key_terms(text)
    share = len(wanted & terms) / len(wanted) if wanted else 1.0
    if share >= SUPPORTED_TERMS or (claim.quantities and share >= SUPPORTED_TERMS - 0.15):
        return Verdict("supported", score=share)
    if len(wanted) <= FEW_TERMS and len(claim.quantities) >= 2 and all(q.unit or q.percent for q in claim.quantities):
        # a claim that is its numbers (`NGC 2516 is 100–200 Myr old and about 400 pc away`): each found with its
        # unit and bound to its words above, so a word or two the passage puts otherwise (`young`, `close`) says little
        return Verdict("supported", score=share)
    if share < UNRELATED_TERMS:
        return Verdict("unsupported", "the passage is about something else", share)
    return Verdict("undecided", "the passage shares some of its words but not clearly this", share)


@lru_cache(maxsize=256)
def _scaled_cells(passage: str) -> Stated:
    """The values of a table of planets with the scale and unit of their row (`6.189` under `a [10^{-2} AU]`)."""
    if passage.count("|") < 5:
        return Stated(())
    return stated_in(" | ".join(cell for letter in "bcdefgh" for _, cell in planet_cells(letter, passage) or []))


def _in_subscript(quantity: Quantity, claim: Claim, passage: str) -> bool:
    """Whether the passage states the number in the subscript of a symbol the claim names (`CDPP_{7.5 hrs}`)."""
    return "_" in passage and any(check_quantity(quantity, stated) is None
                                  for stated in named_symbols(claim.text, passage))


def _row_verdict(claim: Claim, passage: str) -> Verdict | None:
    """A table: the claim's quantities must stand in its object's row (from its name to the next designation);
    None when the table has no row of it."""
    rows = [row for name in claim.names for row in rows_of(name, passage)]
    for row in rows:
        stated = stated_in(row)
        if all(check_quantity(q, stated) is None for q in claim.quantities):
            other = column_reason(claim.quantities, claim.text, row, passage)
            return Verdict("unsupported", other) if other else Verdict("supported", score=1.0)
    return Verdict("unsupported", f"{', '.join(claim.numbers)} is not in the row of {claim.names[0]}") if rows else None


def _planet_verdict(claim: Claim, passage: str) -> Verdict | None:
    """A table of a system's planets by letter: the claim's quantities must stand in the columns (or rows) of the
    planets it names, in a row of the quantity it names (`radius` is not the row `M`); None when a name is no
    planet of such a table (planets.py)."""
    cells: list[str] = []
    letters = [split[1] if (split := split_planet(name)) else "" for name in claim.names] or planet_words(claim.text)
    for letter in letters:
        found = planet_cells(letter, passage) if letter else None
        if found is None:
            return None
        cells += [cell for label, cell in found if row_fits(claim.text, label)]
    if not cells:
        return None
    stated, table = stated_in(" | ".join(cells)), _scaled_cells(passage)
    # a value the table does not hold (`campaign 12` of the prose cited beside it) is no value of its columns
    missing = [q.text for q in claim.quantities if check_quantity(q, stated) is not None
               and check_quantity(replace(q, unit=None), table) is None]
    if missing:
        return Verdict("unsupported", f"{', '.join(missing)} is not in the table's column or row of "
                       f"{', '.join(claim.names or ['planet ' + x for x in letters])} (under the quantity it names)")
    return Verdict("supported", score=1.0)


def union_verdict(claim: Claim, passages: list[tuple[str, str]]) -> Verdict:
    """The verdict of the passages a claim cites by handle, read together (`[c9; c11]`)."""
    texts = [text for _, text in passages]
    return check_support(claim, "\n\n".join(texts), combined(tuple(stated_in(t) for t in texts)))


def best_verdict(claim: Claim, passages: list[tuple[str, str]]) -> tuple[Verdict, str | None]:
    """The best verdict over the passages (handle, text) of a paper a claim cites, and the handle it came from."""
    order = {"supported": 0, "undecided": 1, "unsupported": 2}
    best: tuple[Verdict, str | None] = (Verdict("unsupported", "no passage"), None)
    for handle, text in passages:
        verdict = check_support(claim, text)
        if (order[verdict.status], -verdict.score) < (order[best[0].status], -best[0].score) or best[1] is None:
            best = (verdict, handle)
        if verdict.status == "supported":
            break
    return best
