"""Numbers as quantities: what a claim or a passage states, with its precision, uncertainty, range and unit.

`1925 K`, `0.019^{+0.019}_{-0.010}`, `3.65 ± 1.03`, `5 × 10^3`, `10^4`, `1e-3`, `×10⁻³`, `1-13 M_Jup`,
`1–13`, `10 to 100 pc`, `35%`, `4 500 K`, a table's `1.6(6) × 10^{-4}` (1.6 ± 0.6) (LaTeX's `4\\,500`) are each one quantity. Text is first put in one
plain form (LaTeX spacing, braces and `$` dropped, `\\pm` `\\times` `\\odot` as their signs, superscript digits
as `^`), keeping where each character came from so a claim's spans still apply.

Numbers in words (`twelve`, `a factor of two`) are quantities too (number_words.py), and an uncertainty
in prose (`uncertain by 0.11`, `to within 0.3 dex`) belongs to the value before it (prose_errors.py). What is not a quantity: a number glued to a word (`K2`, `H2O`, `2MASS`, `Q11`), an ordinal (`2nd`), a
subscript (`T_0`), and, in a claim, a year (a symbol's power, `T^-3`, is a number the passage must have) — but a year only by its context: after "in", "since",
"until", a month or a season, or before another year (`2009–2013`). `1925 K` is a temperature.
"""

from __future__ import annotations

import re
from functools import lru_cache

from astro_cli.citations.listed_units import shared_units
from astro_cli.citations.number_words import (
    FRACTION,
    NUMBER_WORD,
    ORDER,
    RATIO,
    any_word,
    fraction_value,
    order_value,
    ratio_value,
    word_value,
)
from astro_cli.citations.prose_errors import attach
from astro_cli.citations.quantity import Quantity
from astro_cli.citations.units import UNIT, compound_unit, unit_key

_REPLACE = {
    "\\,": " ", "\\;": " ", "\\:": " ", "\\!": "", "\\ ": " ", "~": " ", "\u2009": " ", "\u00a0": " ",
    "\u202f": " ", "\u2005": " ", "$": "", "{": "", "}": "", "⟦": "", "⟧": "", "\\pm": "±", "+/-": "±",
    "\\times": "×", "\\cdot": "·", "\\odot": "⊙", "\\oplus": "⊕", "\\sun": "⊙", "\\earth": "⊕", "\\AA": "Å",
    "\\mu": "μ", "\\sigma": "σ", "\\%": "%", "\\sim": "∼", "\\approx": "≈", "\\simeq": "≃", "−": "-", "\\mathrm": "",
    "\\rm ": "", "\\rm": "", "\\textrm": "", "\\text": "", "\\mbox": "", "\\lesssim": "≲", "\\gtrsim": "≳", "^◦": "°",
    "^∘": "°", "^\\circ": "°", "\\circ": "°", "per cent": "%", "percent": "%",
}
_LONE_CAPITAL = re.compile(r"(?<![A-Za-z])([A-Z])(?=\d)")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
# a sign parted from its number by a space where no term stands before it to subtract from: after `=`, `(`, `[`,
# `{`, `&`, or opening a line of an equation (`\begin{cases}\n- 0.0648 \cdot [Fe/H]`); not a list's dash
_LONE_SIGN = (r"(?<=[=(\[{&])[ \t]*[-−][ \t]+(?=\d)"
              r"|(?m:^)[ \t]*[-−][ \t]+(?=[\d.]+[ \t]*(?:\\cdot|\\times|[·×*]))")
_TOKENS = "|".join(re.escape(k) for k in sorted(_REPLACE, key=len, reverse=True)) + "|[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+"
# each opens with a lookahead of the characters a match can start with, so a search passes over the rest at once
_FIRST = re.escape("".join(sorted({token[0] for token in _REPLACE} | set("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"))))
_SIGN_FIRST = re.escape(" \t-−")
_PLAIN = re.compile(f"(?=[{_FIRST}])(?:(?P<sign>(?!))|{_TOKENS})")
# only for a text with a sign and a space after it
_PLAIN_SIGNED = re.compile(f"(?=[{_FIRST}{_SIGN_FIRST}])(?:(?P<sign>{_LONE_SIGN})|{_TOKENS})")
_SPACED_SIGN = re.compile(r"[-−][ \t]+[\d.]")

_N = r"(?:\d{1,3}(?:,\d{3})+(?![\d])(?:\.\d+)?|(?<!\d\x20)\d{1,3}(?:\x20\d{3})+(?![\d.]|\x20\d)|\d+(?:\.\d+)?|\.\d+)"
# the lookahead first: what a quantity can start with, so the search passes over other characters at once
QUANTITY = re.compile(
    rf"""(?=[(\-+.]|\d)(?<![\w._])(?<![_][-+])(?P<lead>\(\s*)?(?P<sign>[-+])?(?P<mant>{_N})
    (?:[eE](?P<e>[-+]?\d+)(?![\d])(?![^\W\d]*\d))?
    (?:\s*\^\s*(?P<pow>[-+]?\d+)(?!\.\d))?
    (?:\((?P<paren>\d+(?:\.\d+)?)\)
      |\s*±\s*(?P<pm>{_N})
      |\s*\^\s*\+\s*(?P<up>{_N})\s*_?\s*-\s*(?P<dn>{_N})
      |\s*_\s*-\s*(?P<dn2>{_N})\s*\^\s*\+\s*(?P<up2>{_N})
      |\s*\(\s*\+\s*(?P<up3>{_N})\s*[,/]?\s*-\s*(?P<dn3>{_N})\s*\)
      |\s+\+\s*(?P<up4>{_N})\s*/?\s*-\s*(?P<dn4>{_N})(?![\d.]))?
    (?(lead)(?P<close>\s*\))?)
    (?:\s*[×x*·]\s*10\s*\^\s*(?P<exp>[-+]?\d+))?""",
    re.VERBOSE,
)
_RANGE = re.compile(rf"(?P<sep>\s?[-–—]\s?|\s+to\s+|\s+and\s+)(?P<mant>{_N})(?:\s*[×x*·]\s*10\s*\^\s*(?P<exp>[-+]?\d+)"
                    r"|\s*\^\s*(?P<pow>[-+]?\d+))?")
_PERCENT = re.compile(r"\s?%")
_NAME_DASH = re.compile(r"[^\W\d_]-$")
_DIGIT_BEFORE = re.compile(r"\d\s?$")
_BETWEEN = re.compile(r"\bbetween\s+(?:[-+]?\s*)?$", re.IGNORECASE)
_FOUR_DIGITS = re.compile(r"\d{4}")
_SCALE_WORD = re.compile(r"\s+(thousand|million|billion)\b(?!\s+(?:years?|yrs?)\b)", re.IGNORECASE)
_PM_AFTER_UNIT = re.compile(rf"\s*±\s*(?P<pm>{_N})")  # `0.329 M_⊙ ± 0.002 M_⊙`: the error after the unit
_UNIT_GAP = re.compile(r"\s?-?\s?|\^?")
# a unit divided by another: `/sec`, ` per day`, ` s^-1`, `/Mpc` after the first unit
# `/cm^3`, `per pixel`, ` cm^-3` (LaTeX `cm$^{-3}$`): a unit divided by, with its power
_PER = re.compile(rf"(?:\s?/\s?|\s+per\s+)(?P<unit>{UNIT.pattern})(?:\s?\^\s?(?P<power>[2-4])(?![\d.]))?"
                  rf"|\s(?P<unit2>{UNIT.pattern})\s?\^\s?-\s?(?P<power2>[1-4])(?![\d.])")
_COEFFICIENT = re.compile(r"[A-Za-z]_")
_ORDINAL = re.compile(r"(?:st|nd|rd|th)\b")
_APPROX = re.compile(r"(?:about|around|roughly|nearly|approximately|approx\.|some|∼|~|≈|≃|≲|≳)\s*$", re.IGNORECASE)
_YEAR_BEFORE = re.compile(
    r"(?:\b(?:in|since|until|till|by|from|during|before|after|circa|c\.|early|late|mid|year|years|spring|summer|"
    r"autumn|fall|winter|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*)|[(;,]"
    r")\s*-?$",
    re.IGNORECASE,
)
_YEAR_AFTER = re.compile(r"\s?[-–—/]\s?(?:1[6-9]|20)\d\d\b")
# a citation's year: after a name or "et al." and before the citation's punctuation (`Gaia Collaboration 2023,`)
_CITED_BEFORE = re.compile(r"(?:\bet\s+al\.?|\b[A-Z][A-Za-z'’-]+)\s*,?\s*$")
_CITED_AFTER = re.compile(r"[a-z]?\s*(?:[,;)\]]|\.(?:\s|$)|$)")
# after "et al." or "A & B" / "A and B" a year is a citation's whatever follows (`Kraus et al. 2015 found ...`)
_AUTHORS_BEFORE = re.compile(r"(?:\bet\s+al\.?|\b[A-Z][A-Za-z'’-]+\s+(?:&|and)\s+[A-Z][A-Za-z'’-]+)\s*,?\s*$")


def plain(text: str) -> tuple[str, list[int]]:
    """The text in one plain form, and for each of its characters the offset it came from."""
    pattern = _PLAIN_SIGNED if _SPACED_SIGN.search(text) else _PLAIN
    if not pattern.search(text):
        return text, list(range(len(text) + 1))
    out: list[str] = []
    where: list[int] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(text[last:match.start()])
        where.extend(range(last, match.start()))
        token = match.group(0)
        new = "-" if match.group("sign") else _REPLACE.get(token)
        if new is None:  # superscript digits: ⁻³ -> ^-3
            new = "^" + token.translate(_SUPERSCRIPT)
        out.append(new)
        where.extend([match.start()] * len(new))
        last = match.end()
    out.append(text[last:])
    where.extend(range(last, len(text) + 1))
    return "".join(out), where


def _spaced(norm: str, where: list[int]) -> tuple[str, list[int]]:
    """`Q14` as `Q 14`, each character keeping where it came from (binding.py reads a passage's offsets)."""
    out: list[str] = []
    at: list[int] = []
    last = 0
    for match in _LONE_CAPITAL.finditer(norm):
        out.append(norm[last:match.end()] + " ")
        at.extend(where[last:match.end()] + [where[match.end()]])
        last = match.end()
    out.append(norm[last:])
    at.extend(where[last:])
    return "".join(out), at


def _number(mantissa: str) -> tuple[float, int]:
    digits = mantissa.replace(",", "").replace(" ", "")
    return float(digits), (len(digits.split(".")[1]) if "." in digits else 0)


def _scaled(mantissa: str, exponent: str | None) -> tuple[float, int]:
    value, decimals = _number(mantissa)
    power = int(exponent) if exponent else 0
    try:
        return value * 10.0 ** power, decimals - power
    except OverflowError:
        return float("inf"), 0


def quantities(text: str, claim: bool = False) -> list[Quantity]:
    """Every quantity stated in `text`, with offsets into `text`. In a claim (`claim`), a number glued to a
    hyphenated word (`Matérn-3/2`, `K2-3`) is a name, and years are marked."""
    norm, where = plain(text)
    if not claim and _LONE_CAPITAL.search(norm):  # a passage's `Q14-17`, `K2`: the quarter's number is stated
        norm, where = _spaced(norm, where)
    found: list[Quantity] = []
    spans: list[tuple[int, int]] = []
    position = 0
    while True:
        match = QUANTITY.search(norm, position)
        if match is None:
            return shared_units(text, _with_words(norm, where, attach(norm, found, spans)))
        quantity, end = _read(norm, where, match, claim)
        position = max(end, match.start() + 1)
        if quantity is None:
            continue
        found.append(quantity)
        spans.append((_shown(match), end))


def _with_words(norm: str, where: list[int], found: list[Quantity]) -> list[Quantity]:
    """`found` and the numbers the text writes in words (number_words.py), in the order they stand."""
    if not any_word(norm):
        return found
    words = [Quantity(float(order_value(m)), 6, "order", start=where[m.start()], end=where[m.end() - 1] + 1, text=m.group(0),
                      bare=m.group(0), worded=True) for m in ORDER.finditer(norm)]
    fractions, ratios = list(FRACTION.finditer(norm)), list(RATIO.finditer(norm))  # each read once
    words += [_fraction(norm, where, m) for m in fractions]
    words += [Quantity(ratio_value(m), 6, start=where[m.start()], end=where[m.end() - 1] + 1, text=m.group(0),
                       bare=m.group(0), worded=True) for m in ratios]
    parts = [m.span() for m in fractions] + [m.span() for m in ratios]
    for match in NUMBER_WORD.finditer(norm):
        if any(a <= match.start() < b for a, b in parts):
            continue  # the count of a fraction (`Two thirds`), not a number of its own
        end = match.end()
        percent = _PERCENT.match(norm, end)
        unit = None
        if percent:
            end = percent.end()
        else:
            unit, end, _ = _unit(norm, end)
        approx = bool(_APPROX.search(norm[max(0, match.start() - 16):match.start()]))
        # a count in words is exact: `five` is 5, not the passage's 5.2 rounded
        words.append(Quantity(float(word_value(match)), 6, unit, bool(percent), approx=approx,
                              start=where[match.start()], end=where[end - 1] + 1, text=norm[match.start():end].strip(),
                              bare=match.group(0), worded=True))
    return sorted(found + words, key=lambda q: q.start)


def _shown(match: re.Match[str]) -> int:
    """Where a quantity's text starts: its sign, its number, or the parenthesis of `(1.2 ± 0.3) × 10^5` (whole)."""
    if match.group("lead"):
        return match.start("lead")
    return match.start("sign") if match.group("sign") else match.start("mant")


_OF_ONE = re.compile(r"\s+an?\s+")  # `half an hour`, `half a million`: a share of one unit or of a scale


def _fraction(norm: str, where: list[int], match: re.Match[str]) -> Quantity:
    """A fraction in words, with the unit or scale of the `a`/`an` it takes (`half an hour` is 0.5 h)."""
    value, unit, end = fraction_value(match), None, match.end()
    one = _OF_ONE.match(norm, end)
    if one is not None:
        scale = re.match(r"(hundred|thousand|million|billion)\b", norm[one.end():], re.IGNORECASE)
        if scale is not None:
            value *= {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9}[scale.group(1).lower()]
            end = one.end() + scale.end()
        else:
            unit, after, glued = _unit(norm, one.end())
            end = after if unit is not None and not glued else end
    return Quantity(value, 6, unit, start=where[match.start()], end=where[end - 1] + 1, text=norm[match.start():end],
                    bare=match.group(0), worded=True, approx=bool(_APPROX.search(norm[max(0, match.start() - 16):match.start()])))


def _read(norm: str, where: list[int], match: re.Match[str], claim: bool) -> tuple[Quantity | None, int]:
    """(the quantity a match starts, with its offsets in the text `where` maps `norm` to; where it ends)."""
    start = match.start("sign") if match.group("sign") else match.start("mant")
    before = norm[max(0, start - 2):start]
    if claim and _NAME_DASH.search(before):
        return None, match.end("mant")  # `Matérn-3/2`, `Kepler-10`: part of a name
    if match.group("sign") == "-" and _DIGIT_BEFORE.search(before):
        return None, start + 1  # "Q11-12": a dash after a digit is no sign
    if match.group("lead") and not match.group("close"):
        return None, match.end("lead")  # "(" opened nothing: read the number alone
    exponent = match.group("exp") or match.group("e")
    mantissa = match.group("mant")
    if match.group("pow") is not None:
        if mantissa != "10" or exponent:
            return None, match.end()  # `N^3`-like: a symbol's power, or a form not understood
        # `10^4` is exact to a tenth of itself: `10^4` is neither `10^3` nor `6 × 10^3`
        value, decimals = 10.0 ** int(match.group("pow")), 1 - int(match.group("pow"))
    else:
        value, decimals = _scaled(mantissa, exponent)
    if match.group("sign") == "-":
        value = -value
    end = match.end()
    scale = _SCALE_WORD.match(norm, end) if match.group("pow") is None and not exponent else None
    if scale:  # `5 thousand`, `2 million stars` (not `2 million years`: a unit)
        power = {"thousand": 3, "million": 6, "billion": 9}[scale.group(1).lower()]
        value, decimals, end = value * 10.0 ** power, decimals - power, scale.end()
    plus = minus = None
    error_decimals = 0
    pm = match.group("pm")
    if match.group("paren"):  # a table's `8.1(1.7)` or `1.6(6)`: the uncertainty in the last digits shown
        paren = match.group("paren")
        pm = paren if "." in paren else str(int(paren) * 10.0 ** -_number(mantissa)[1])
    up = match.group("up") or match.group("up2") or match.group("up3") or match.group("up4")
    down = match.group("dn") or match.group("dn2") or match.group("dn3") or match.group("dn4")
    if pm or up:
        plus, error_decimals = _scaled(pm or up or "0", exponent)
        minus = plus if pm else _scaled(down or "0", exponent)[0]
    high = None
    high_decimals = 0
    follow = _RANGE.match(norm, end)
    if follow and plus is None and (follow.group("sep").strip() != "and" or _between(norm, start)):
        if follow.group("pow") is not None and follow.group("mant") == "10":  # `10^2 to 10^5`
            high, high_decimals = 10.0 ** int(follow.group("pow")), 1 - int(follow.group("pow"))
        else:
            high, high_decimals = _scaled(follow.group("mant"), follow.group("exp") or exponent)
        end = follow.end() if follow.group("pow") is None or follow.group("mant") == "10" else follow.end("mant")
    bare_end = end
    percent = bool(_PERCENT.match(norm, end))
    if percent:
        end = _PERCENT.match(norm, end).end()  # type: ignore[union-attr]
    unit = None
    if not percent:
        unit, end, glued = _unit(norm, end)
        if glued:
            return None, end  # `2MASS`, `3D`, `2nd`: not a quantity
        after = _PM_AFTER_UNIT.match(norm, end) if unit and plus is None and high is None else None
        if after:
            plus, error_decimals = _scaled(after.group("pm"), exponent)
            minus, end = plus, after.end()
            again, again_end, _ = _unit(norm, end)
            end = again_end if again == unit else end
    year = claim and _is_year(norm, start, end, mantissa, unit, percent, plus, exponent, match)
    approx = bool(_APPROX.search(norm[max(0, start - 16):start]))
    shown = _shown(match)
    return Quantity(value, decimals, unit, percent, plus, minus, error_decimals, high, high_decimals, approx, year,
                    bool(match.group("sign")), where[start], where[end - 1] + 1, norm[shown:end].strip(),
                    norm[shown:bare_end].strip()), end


def _between(norm: str, start: int) -> bool:
    return bool(_BETWEEN.search(norm[max(0, start - 12):start]))


def _unit(norm: str, end: int) -> tuple[str | None, int, bool]:
    """(the unit after a number, where it ends, whether the number is glued to a word that is no unit)."""
    gap = _UNIT_GAP.match(norm, end)
    at = gap.end() if gap else end
    found = UNIT.match(norm, at)
    if found is None and at != end:
        found = UNIT.match(norm, end)
        at = end
    if found is not None:
        key = unit_key(found.group(0))
        if key is not None and not (len(found.group(0)) == 1 and "-" in norm[end:at]):
            return _per(norm, key, found.end())
    # `0.1Z_⊙`, `2T_0`: a coefficient of a symbol with a subscript is a number; `K2`, `2MASS`, `3D`, `2nd` are not
    glued = end < len(norm) and (norm[end].isalpha() or bool(_ORDINAL.match(norm, end))) and not _COEFFICIENT.match(
        norm, end)
    return None, end, glued


def _per(norm: str, key: str, end: int) -> tuple[str, int, bool]:
    """A unit read whole: `cm/sec`, `cm s^-1` (LaTeX `cm\\,s$^{-1}$`) are one speed, not `cm` (compound_unit)."""
    while (per := _PER.match(norm, end)) is not None:
        denominator = unit_key(per.group("unit") or per.group("unit2"))
        if denominator is None:
            break
        power = per.group("power") or per.group("power2") or "1"
        key, end = compound_unit(key, denominator if power == "1" else denominator + power), per.end()
    return key, end, False


def _is_year(norm: str, start: int, end: int, mantissa: str, unit: str | None, percent: bool,
             plus: float | None, exponent: str | None, match: re.Match[str]) -> bool:
    if unit or percent or plus is not None or exponent or match.group("sign") or not _FOUR_DIGITS.fullmatch(mantissa):
        return False
    if not 1600 <= int(mantissa) <= 2099:
        return False
    before = norm[max(0, start - 40):start]
    if _CITED_BEFORE.search(before) and _CITED_AFTER.match(norm, match.end("mant")) or _AUTHORS_BEFORE.search(before):
        return True
    return bool(_YEAR_BEFORE.search(norm[max(0, start - 14):start]) or _YEAR_AFTER.match(norm, match.end("mant")))


@lru_cache(maxsize=1024)
def passage_quantities(text: str) -> tuple[Quantity, ...]:
    """The quantities of a passage (cached: a session checks many claims against the same passages)."""
    return tuple(quantities(text))
