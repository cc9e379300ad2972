"""Hyphens at line ends: `atmo-spheric` is one word, `short-period` keeps its hyphen.

PDFium marks a hyphen it found at a line end (SOFT_HYPHEN) but cannot tell TeX's hyphenation of
one word from a compound that happened to break at its own hyphen. The document itself is the best
witness: a paper that writes `short-period` once in mid-line means the hyphen at a line end is
real; a paper that writes `atmospheric` means the broken one is not. Where the paper is silent, an
English word list decides (the joined form is a word: join; both halves are words, however short,
keep: `by-hand`, since `byhand` is no word), and
TeX's own rules settle the rest (it never hyphenates before a digit, nor leaves fewer than two letters
before a break or three after it). A capital after the break is a second name, kept, unless the
first half cannot be a name (no vowel: `Mc-Naught`) or the word list or the paper writes them as one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from astro_cli.research.text.pdfchars import fold

SOFT_HYPHEN = "\ufffe"  # PDFium's mark for a hyphen at a line end (the lines already joined)
_MARKED = re.compile(r"([\w'’-]*)" + SOFT_HYPHEN + r"\s*([\w'’-]*)")
_WORD_CHAR = re.compile(r"[\w'’-]")
_TOKEN = re.compile(r"[^\W\d_][\w'’]*(?:-(?=\w)[\w'’]*)*")  # a word, a hyphen only before a word character
WordCheck = Callable[[str], bool]
# a surname broken at a line end in a citation (`Holm-` / `berg et al. 2006`): TeX's break of one name,
# whatever its halves mean; a double-barrelled name has a capital on both sides (`Almeida-Fernandes`)
_SURNAME = re.compile(r"^[A-Z][a-z’'-]+$")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_CITED = re.compile(r"\s*(?:et\s+al\.|&\s+[A-Z]|,?\s+\(?(?:1[89]|20)\d\d[a-z]?\b)")


@lru_cache(maxsize=1)
def english_words() -> WordCheck:
    """Membership in pyspellchecker's English list (160,000 words with their inflections) or in
    astro_words.py's words of astronomy that list lacks (`supermassive`, `metallicity`).

    Loaded once per process and only when a paper leaves a hyphen undecided (about 0.2 s); the
    list is read-only data shipped in the package, so caching it is not shared mutable state.
    """
    from spellchecker import SpellChecker

    from astro_cli.research.text.astro_words import ASTRONOMY_WORDS

    known = SpellChecker(language="en", distance=1).word_frequency.dictionary
    return lambda word: word in known or word in ASTRONOMY_WORDS


class HyphenResolver:
    """Decides each marked line-end hyphen of one document from that document's own words."""

    def __init__(self, document: str, words: WordCheck | None = None) -> None:
        tokens = _TOKEN.findall(fold(_unmarked(document)))  # folded once, as a whole
        self.joined: Counter[str] = Counter(tokens)  # each word, the parts of a compound counted apart
        self.hyphenated: Counter[str] = Counter()  # each pair of parts a compound joins with a hyphen
        for token in [token for token in self.joined if "-" in token]:
            times = self.joined.pop(token)
            parts = token.split("-")
            for part in parts:
                if part:
                    self.joined[part] += times
            for a, b in zip(parts, parts[1:]):
                if a and b:
                    self.hyphenated[f"{a}-{b}"] += times
        self._words = words

    def words(self, word: str) -> bool:
        if self._words is None:
            self._words = english_words()
        return self._words(word)

    def keep_hyphen(self, left: str, right: str) -> bool:
        """True when `left-right` broken at a line end is a compound, False for a hyphenated word."""
        head = left.rsplit("-", 1)[-1]
        tail = re.sub(r"(?<=[^\W\d_])\d+$", "", right.split("-", 1)[0])  # a footnote mark glued on
        if not head or not tail:
            return True
        if "-" in left or "-" in right or tail[0].isdigit() or head[-1].isdigit():
            return True  # TeX breaks a word that has a hyphen only at that hyphen; never before a digit
        if tail[0].isupper() and not (head.isupper() and tail.isupper()):
            return not self._one_name(head, tail)
        if len(head) < 2 or len(tail) < 3:
            return True
        a, b = fold(head), fold(tail)
        compound, single = self.hyphenated[f"{a}-{b}"], self.joined[a + b]
        if compound or single:
            return compound > single
        if self.words(a + b):
            return False
        return self._is_word(a) and self._is_word(b)  # an unknown whole of two words: a compound

    def _one_name(self, head: str, tail: str) -> bool:
        """A capital after the break is a second name (`Almeida-Fernandes`) unless the head cannot
        stand as a name: it has no vowel (`Mc-Naught`, the comet), or the paper or the word list
        writes the two as one (`Mac-Donald`)."""
        if len(head) < 2 or not (head[0].isupper() and head[1:].islower()):
            return False  # `HST-Based`, `J-Pierre`: an acronym or an initial
        whole = fold(head + tail)
        if self.hyphenated[f"{fold(head)}-{fold(tail)}"] or self.joined[whole]:
            return self.joined[whole] > self.hyphenated[f"{fold(head)}-{fold(tail)}"]
        return not _VOWEL.search(head) or self.words(whole)

    def _is_word(self, word: str) -> bool:
        return self.joined[word] > 0 or self.words(word)

    def resolve(self, text: str, after: str = "") -> str:
        """The text with every mark turned into a hyphen or removed; `after`: the text that follows
        it (the next line), read only to see a citation go on."""
        if SOFT_HYPHEN not in text:
            return text
        context = f"{text} {after[:40]}"

        def decide(match: re.Match[str]) -> str:
            left, right = match.group(1), match.group(2)
            cited = _SURNAME.match(left) is not None and right.islower() and _CITED.match(context, match.end())
            joint = "" if cited else "-" if self.keep_hyphen(left, right) else ""
            return f"{left}{joint}{right}"

        return _MARKED.sub(decide, text).replace(SOFT_HYPHEN, "-")


def _unmarked(document: str) -> str:
    """_MARKED.sub(" ", document), without the regular expression trying every position of a long
    document (each word is consumed and given up again before the next position is tried): each
    match starts where the run of word characters before its mark starts (or where the last one
    ended), so it is matched there."""
    parts: list[str] = []
    at = 0
    while True:
        mark = document.find(SOFT_HYPHEN, at)
        if mark < 0:
            break
        start = mark
        while start > at and _WORD_CHAR.match(document, start - 1):
            start -= 1
        found = _MARKED.match(document, start)
        assert found is not None  # the run before the mark, the mark: the pattern's two first parts
        parts.append(document[at:start])
        parts.append(" ")
        at = found.end()
    parts.append(document[at:])
    return "".join(parts)
