"""Does a passage support a claim? The cheap check: numbers, names and key terms, no model call.

A claim is supported by a passage when every number it states is in the passage (as written, or
rounded from it, or as a percentage of a fraction), every designation it names is there
(`HD 189733b`, spaces and hyphens ignored), and enough of its key terms are (stems, accents and
case ignored). A number or a name the passage lacks makes it unsupported; a passage that shares
few of its words does too. What lies between is undecided: the optional model judge (judge.py)
decides it, or it is reported unsupported ("could not be confirmed"), never supported.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from astro_cli.citations.claims import NUMBER, Claim
from astro_cli.research.text.pdfchars import fold
from astro_cli.stopwords import STOPWORDS

SUPPORTED_TERMS = 0.5  # share of the claim's key terms a supporting passage must have
UNRELATED_TERMS = 0.2  # below this share the passage is about something else
_WORD = re.compile(r"[^\W\d_][\w-]*")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s", "al")
_EXTRA_STOP = frozenset("""which whose were been being than then also thus hence however therefore exactly
    approximately about around roughly nearly only every each both most many much such very well shown found
    reported measured estimated established study studies work result results value values show shows""".split())


@dataclass(frozen=True)
class Verdict:
    """`supported`, `unsupported` or `undecided`, and why (for the researcher)."""

    status: str
    reason: str = ""
    score: float = 0.0


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = fold(word.lower())
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def key_terms(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text) if len(w) >= 4 and w.lower() not in STOPWORDS
            and w.lower() not in _EXTRA_STOP}


def value_of(number: str) -> tuple[float, int, bool] | None:
    """(value, decimals shown, is a percentage) of a number as written: `1.2 × 10^5`, `35%`, `−0.3`."""
    match = NUMBER.fullmatch(number.strip())
    if not match:
        return None
    mantissa = match.group(1).replace("−", "-").replace(",", "")
    exponent = (match.group(2) or match.group(3) or "0").replace("−", "-")
    try:
        value = float(mantissa) * 10 ** int(exponent)
    except (ValueError, OverflowError):
        return None
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return value, decimals - int(exponent), bool(match.group(4))


@lru_cache(maxsize=512)
def _passage_facts(text: str) -> tuple[frozenset[float], set[str], str]:
    plain = text.replace("−", "-").replace("\u2009", " ").replace("\u00a0", " ")
    values = set()
    for match in NUMBER.finditer(plain):
        parsed = value_of(match.group(0))
        if parsed is not None:
            values.add(parsed[0])
            if match.group(1).startswith("-"):
                values.add(-parsed[0])  # "−0.3" in a range "0.1−0.3" is a dash, not a sign
    squashed = re.sub(r"[\s\-‐–]", "", fold(plain.lower()))
    return frozenset(values), key_terms(plain), squashed


def numbers_in(text: str) -> frozenset[float]:
    """The values of the numbers written in a text."""
    return _passage_facts(text)[0] if len(text) < 20_000 else frozenset(
        parsed[0] for m in NUMBER.finditer(text.replace("−", "-")) if (parsed := value_of(m.group(0))) is not None)


def number_in(number: str, values: frozenset[float]) -> bool:
    parsed = value_of(number)
    if parsed is None:
        return True
    value, decimals, percent = parsed
    candidates = [value, abs(value)] + ([value / 100] if percent else [value * 100, value / 100])
    tolerance = 0.5 * 10 ** (-decimals) if decimals > -300 else 0.0
    ordered = _sorted(values)
    for wanted in candidates:
        scale = tolerance * (abs(wanted) / abs(value) if value else 1.0)
        margin = scale + 1e-12 + abs(wanted) * 1e-9
        index = bisect.bisect_left(ordered, wanted - margin)
        if index < len(ordered) and ordered[index] <= wanted + margin:
            return True
    return False


@lru_cache(maxsize=64)
def _sorted(values: frozenset[float]) -> tuple[float, ...]:
    return tuple(sorted(values))


def check_support(claim: Claim, passage: str) -> Verdict:
    values, terms, squashed = _passage_facts(passage)
    missing = [n for n in claim.numbers if not number_in(n, values)]
    if missing:
        return Verdict("unsupported", f"{', '.join(missing)} is not in the passage")
    absent = [n for n in claim.names if re.sub(r"[\s\-‐–]", "", fold(n.lower())) not in squashed]
    if absent:
        return Verdict("unsupported", f"{', '.join(absent)} is not named in the passage")
    text = claim.text
    for a, b in sorted(claim.spans, reverse=True):
        text = text[:a] + " " + text[b:]
    wanted = key_terms(text)
    share = len(wanted & terms) / len(wanted) if wanted else 1.0
    if share >= SUPPORTED_TERMS or (claim.numbers and share >= SUPPORTED_TERMS - 0.15):
        return Verdict("supported", score=share)
    if share < UNRELATED_TERMS:
        return Verdict("unsupported", "the passage is about something else", share)
    return Verdict("undecided", "the passage shares some of its words but not clearly this", share)


def best_verdict(claim: Claim, passages: list[tuple[str, str]]) -> tuple[Verdict, str | None]:
    """The best verdict over the passages (handle, text) a claim cites, and the handle it came from."""
    order = {"supported": 0, "undecided": 1, "unsupported": 2}
    best: tuple[Verdict, str | None] = (Verdict("unsupported", "no passage"), None)
    for handle, text in passages:
        verdict = check_support(claim, text)
        if (order[verdict.status], -verdict.score) < (order[best[0].status], -best[0].score) or best[1] is None:
            best = (verdict, handle)
        if verdict.status == "supported":
            break
    return best
