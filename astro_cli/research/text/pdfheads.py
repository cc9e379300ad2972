"""Running heads and footers known by their form, where the page count cannot show them.

pdftext.running_heads finds the lines that open or close many pages; a paper cut to two or three
pages (an attachment, a preview) has too few for that, and its heads were read into the text
(`TOI 837 IN IC 2602 | 9 Table 2 (continued)`, `2 A. Tokiwa et al.`). The journal classes set them in a
few forms, taken at a page's edge (the classes' own lines anywhere: nothing else prints them):
- a short line of title words with the page number at its end (AASTeX's odd pages, A&A, MNRAS):
  `KEPLER AND THE BEHEMOTH 7`, `Rotating Stars 5`, `The Future of the Sun and the Fate of the Earth 3`;
- the page number, then authors (even pages): `6 BOUMA ET AL.`, `2 A. Tokiwa et al.`, `4 Davenport & Covey`;
- the classes' own lines: MNRAS's `MNRAS 000, 1–3 (2024)` and `© 2024 The Authors`, A&A's
  `Article number, page 5 of 12`, `A&A proofs: manuscript no. ms` and `©ESO 2024`, AASTeX's `Draft version
  January 23, 2018`, `Typeset using LATEX ... style in AASTeX62`, the preprint style's `– 8 –`.
A numbered heading (`3 STATISTICS`, `4. Results`) is none of these: a heading's number comes first
and is followed by a full stop, capitals or a known section name, never by names alone.
"""

from __future__ import annotations

import re

_CLASS_LINES = re.compile(
    r"^(?:MNRAS\s+\d{3},\s*\d+[–-]\d+\s+\(\d{4}\)|©\s*\d{4}\s+The\s+Authors?\b|©\s*ESO\s+\d{4}$|Article number, page \d+ of \d+"
    r"|A&A proofs: manuscript no\.|Astronomy & Astrophysics manuscript no\.|Draft version [A-Z][a-z]+ \d{1,2}, \d{4}$"
    r"|Typeset using L\s?A\s?TEX\b.*\bstyle\b|Preprint typeset using L\s?A\s?TEX style)")
_PAGE_NUMBER = re.compile(r"^[–-]\s*\d{1,4}\s*[–-]$")  # the preprint style's `– 8 –`, at a page's edge only
_TRAILING = re.compile(r"^(?P<title>[^\d\s][^|]{2,80}?)\s+(?:\|\s+)?\d{1,4}$")
_LEADING_AUTHORS = re.compile(
    r"^\d{1,4}\s+(?:\|\s+)?(?:(?:[A-Z]\.\s?)*[A-Z][\w’'-]+(?:\s+(?:&|and)\s+(?:[A-Z]\.\s?)*[A-Z][\w’'-]+)?"
    r"|.{1,60}\bet\s+al\.?)$", re.IGNORECASE)
_CAPTIONS = frozenset({"table", "figure", "fig.", "equation", "eq.", "section", "appendix", "chapter", "page"})
_SMALL = frozenset({"a", "an", "and", "of", "the", "in", "on", "for", "to", "with", "from", "by", "at", "as",
                    "or", "&", "vs", "is"})


def class_head(text: str, section_names: frozenset[str], top: bool) -> bool:
    """A running head or footer of a journal class, by its form alone: the classes' own lines at a
    page's top or foot, a title or authors with the page number only at its top."""
    if class_line(text) or _PAGE_NUMBER.match(text):
        return True
    if not top:
        return False
    found = _TRAILING.match(text)
    if found and _title_words(found.group("title")) and found.group("title").lower().strip() not in _CAPTIONS:
        return True
    authors = _LEADING_AUTHORS.match(text)
    if authors is None:
        return False
    words = re.sub(r"^\d+\s+(?:\|\s+)?", "", text)
    return "et al" in words.lower() or words.title() not in section_names and not words.isupper()


def class_line(text: str) -> bool:
    """A line only a journal class prints, wherever the page has it (1001.0012 prints its `Draft
    version` line twice on page 1, the second under the authors)."""
    return _CLASS_LINES.match(text) is not None


def _title_words(title: str) -> bool:
    """Every word of a title that is not a small word is capitalised (or all capitals), and it ends no
    sentence: `KEPLER’S DEMOGRAPHIC CLIFF`, `V1298 Tau with TESS`."""
    if title.rstrip().endswith((".", ",", ";", ":")) and not title.rstrip().lower().endswith("et al."):
        return False
    words = [w for w in re.findall(r"[^\s|]+", title) if w.lower() not in _SMALL]
    return 0 < len(words) <= 10 and all(w[:1].isupper() or w[:1].isdigit() for w in words) \
        and any(w[:1].isalpha() for w in words)
