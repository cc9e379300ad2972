"""Characters of PDF text as a reader expects them: accents composed, TeX glyph codes named.

TeX's fonts carry no Unicode for some glyphs, so PDFium reports their raw font codes, which land
in the text as control characters: a big parenthesis of cmex10 comes out as 0x10, `≪` of cmsy10
as 0x1c. Given the font a code came from, the TeX font tables below name the glyph; a code from
another font becomes a space. Accents typeset by TeX's \\' or \\v (`L´opez`, `Teˇsanovi´c`) come
out as a spacing accent before the letter; they are composed into one character (`López`), so the
text reads right and the index folds it to the plain spelling too.
"""

from __future__ import annotations

import re
import unicodedata

# Spacing accents as PDFium reports them, and the combining mark each one stands for.
SPACING_ACCENTS = {
    "\u00b4": "\u0301", "\u02dd": "\u030b", "\u02c7": "\u030c", "\u00a8": "\u0308", "\u02c6": "\u0302",
    "\u02dc": "\u0303", "\u00af": "\u0304", "\u02d8": "\u0306", "\u02d9": "\u0307", "\u02da": "\u030a",
    "\u00b8": "\u0327", "\u02db": "\u0328", "\u02cb": "\u0300", "`": "\u0300",
}
_ACCENT_BEFORE_LETTER = re.compile("([" + re.escape("".join(SPACING_ACCENTS)) + r"])([A-Za-z\u0131])")
# Greek letters that mathematics sets apart from their plain forms (ϵ beside ε in one paper); NFKC
# would fold them into one.
MATH_VARIANTS = "ϵϑϕϖϱϰℓ"
_KEEP_AS_IS = re.compile("([" + re.escape("".join(SPACING_ACCENTS)) + MATH_VARIANTS + "])")
_ANY_ACCENT = re.compile("[" + re.escape("".join(SPACING_ACCENTS)) + "]")

# Codes 0x00-0x1f of the Computer Modern fonts (Knuth's tables), by font family.
_CMEX = "()[]⌊⌋⌈⌉{}⟨⟩|‖/\\()()[]⌊⌋⌈⌉{}⟨⟩/\\"
_CMSY = "−·×∗÷⋄±∓⊕⊖⊗⊘⊙◯∘•≍≡⊆⊇≤≥⪯⪰∼≈⊂⊃≪≫≺≻"
_CMR = ["Γ", "Δ", "Θ", "Λ", "Ξ", "Π", "Σ", "Υ", "Φ", "Ψ", "Ω", "ff", "fi", "fl", "ffi", "ffl",
        "ı", "ȷ", "`", "´", "ˇ", "˘", "¯", "˚", "¸", "ß", "æ", "œ", "ø", "Æ", "Œ", "Ø"]
_CMMI = "ΓΔΘΛΞΠΣΥΦΨΩαβγδϵζηθικλμνξπρστυϕχ"
TEX_FONT_CODES: dict[str, list[str]] = {
    "CMEX": list(_CMEX), "CMSY": list(_CMSY), "CMBSY": list(_CMSY), "CMR": _CMR, "CMBX": _CMR, "CMSL": _CMR,
    "CMTI": _CMR, "CMSS": _CMR, "CMMI": list(_CMMI), "CMMIB": list(_CMMI),
    # txfonts and pxfonts (A&A, many AASTeX papers) keep Computer Modern's layout
    "TXSY": list(_CMSY), "PXSY": list(_CMSY), "TXEX": list(_CMEX), "PXEX": list(_CMEX),
    "TXMI": list(_CMMI), "RTXMI": list(_CMMI), "PXMI": list(_CMMI), "RPXMI": list(_CMMI),
}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


# TeX's math fonts by the role in their name, whatever the package: txfonts' `txsys`/`txexs`/`txmia`,
# newtx's `NewTXMI`, CM-Bright's `HFBRMI10`, Latin Modern's `LMMathSymbols10-Regular`. Each keeps
# Computer Modern's code layout, so it is read with cmsy's, cmex's or cmmi's table.
_ROLE = re.compile(r"^(?:CMB?|R?TX|R?PX|N(?:EW)?TX|HFBR|LM(?:MATH)?|ZX|MT|EU)"
                   r"(SYS?|SYMBOLS|EX[SX]?|EXTENSION|MI[AB]?|ITALIC)(?:-.*)?$")
_ROLE_FAMILY = {"SY": "CMSY", "SYS": "CMSY", "SYMBOLS": "CMSY", "EX": "CMEX", "EXS": "CMEX", "EXX": "CMEX",
                "EXTENSION": "CMEX", "MI": "CMMI", "MIA": "CMMI", "MIB": "CMMIB", "ITALIC": "CMMI"}


def font_family(font: str) -> str:
    """'ABCDEF+CMSY10' -> 'CMSY': a font without its subset prefix and design size; a TeX math font of
    another package (`txsys`, `HFBRMI10`, `LMMathSymbols10-Regular`) named by its Computer Modern
    counterpart, unless its own name is one the tables know."""
    family = font.rsplit("+", 1)[-1].upper().rstrip("0123456789")
    if family in TEX_FONT_CODES:
        return family
    role = _ROLE.match(re.sub(r"\d+(?=-)", "", family))
    return _ROLE_FAMILY[role.group(1)] if role else family


def glyph_for(code: int, font: str) -> str:
    """The character a TeX font's raw code stands for; a space when the font is not one we know."""
    table = TEX_FONT_CODES.get(font_family(font))
    if table is not None and 0 <= code < len(table):
        return table[code]
    return " "


def strip_controls(text: str) -> str:
    """No control character survives (tab and line ends aside): each is a space."""
    return _CONTROL.sub(" ", text)


def compose_accents(text: str) -> str:
    """`L´opez` -> `López`, `Teˇsanovi´c` -> `Tešanović`: a spacing accent before a letter joins it."""
    if not _ANY_ACCENT.search(text):
        return text
    def attach(match: re.Match[str]) -> str:
        letter = "i" if match.group(2) == "\u0131" else match.group(2)  # \'{\i}: an accent on a dotless i
        return letter + SPACING_ACCENTS[match.group(1)]

    return unicodedata.normalize("NFC", _ACCENT_BEFORE_LETTER.sub(attach, text))


def plane_char(code: int) -> str:
    """The character of a Unicode code point as the reader writes it: a letter or digit of the
    Mathematical Alphanumeric Symbols (U+1D400-U+1D7FF: `𝛼`, `𝐶` of newtx and unicode-math fonts) is
    its plain letter (`α`, `C`), which the searches and the labelled conventions use; a surrogate or
    a code beyond Unicode is nothing. Only the font is taken off (its `<font>` decomposition, not NFKC),
    so a variant letter stays one (`𝜖` is `ϵ`, `𝜙` is `ϕ`, as normalize_line keeps them)."""
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return ""
    char = chr(code)
    if 0x1D400 <= code <= 0x1D7FF:
        kind, _, plain = unicodedata.decomposition(char).partition(" ")
        if kind == "<font>" and plain:
            return chr(int(plain, 16))
    return char


def normalize_line(text: str) -> str:
    """One line of PDF text: accents composed, compatibility forms folded (ligatures, full-width),
    control characters gone. A spacing accent left alone (math: `r¯`) is kept as it is, since
    NFKC would turn it into a space and a combining mark, and so is a variant Greek letter (ϵ, ϕ)."""
    text = compose_accents(strip_controls(text))
    if text.isascii():
        return text
    parts = _KEEP_AS_IS.split(text)
    return "".join(part if len(part) == 1 and _KEEP_AS_IS.match(part) else unicodedata.normalize("NFKC", part)
                   for part in parts)


def fold(text: str) -> str:
    """Lower case without accents, for comparing words the way the search index does."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return _NON_ASCII.sub(_without_marks, decomposed)  # marks are never ASCII: only those runs are looked at


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _without_marks(found: re.Match[str]) -> str:
    return "".join(ch for ch in found.group() if not unicodedata.combining(ch))


# TeX's math fonts as PDFium reads them without a Unicode map: the printable codes of cmsy, cmex and
# msam come out as the ASCII character of the same code (RevTeX's ⟨φ⟩ as `hφi`, ≠ as `6=`, ∫ as `Z`,
# a prime as `0`). A correct map never yields a lower-case letter or a digit from these fonts, so
# those (and cmex's letters) are named from Knuth's and the AMS tables; '' is a piece of a big
# delimiter that carries no text of its own.
_CMSY_ASCII = dict(zip(
    "0123456789abcdefghijklmnopqrstuvwxyz!\"#$%&'()+/:;<=>?@[]^_`",
    ["′", "∞", "∈", "∋", "△", "▽", "\u0338", "", "∀", "∃",  # 0-9 (6: the negation slash)
     "⊣", "⌊", "⌋", "⌈", "⌉", "{", "}", "⟨", "⟩", "|", "‖", "↕", "⇕", "\\", "≀", "√", "⨿", "∇", "∫", "⊔",
     "⊓", "⊑", "⊒", "§", "†", "‡",  # a-z
     "→", "↑", "↓", "↔", "↗", "↘", "≃", "⇐", "⇒", "⇓", "∝", "¬", "∅", "ℜ", "ℑ", "⊤", "⊥", "ℵ", "∪", "⊎",
     "∧", "∨", "⊢"],
    strict=True,
))
_CMEX_ASCII = {
    "0": "(", "1": ")", "2": "[", "3": "]", "8": "{", "9": "}", "D": "⟨", "E": "⟩", "F": "⊔", "G": "⊔",
    "H": "∮", "I": "∮", "J": "⊙", "K": "⊙", "L": "⊕", "M": "⊕", "N": "⊗", "O": "⊗", "P": "∑", "Q": "∏",
    "R": "∫", "S": "⋃", "T": "⋂", "U": "⊎", "V": "⋀", "W": "⋁", "X": "∑", "Y": "∏", "Z": "∫", "a": "∐",
    "h": "[", "i": "]", "j": "⌊", "k": "⌋", "l": "⌈", "m": "⌉", "n": "{", "o": "}", "p": "√", "q": "√",
    "r": "√", "s": "√", "t": "√",
    # the largest size of each delimiter (codes 0x21-0x2B; `"σ_n^2 + ...#` was `[σ_n^2 + ...]`); `(`,
    # `)`, `,`, `-`, `.` and `/` are left alone, as a font with a Unicode map may give those for themselves
    "!": ")", '"': "[", "#": "]", "$": "⌊", "%": "⌋", "&": "⌈", "'": "⌉", "*": "⟨", "+": "⟩",
}
# cmmi's codes whose glyph is no letter: a correct map never gives '?' (⋆ is code 0x3f) or '@' (∂),
# and `ǫ` (U+01EB, Latin o with ogonek) is what a wrong glyph-name map makes of cmmi's `epsilon1` (ϵ).
_CMMI_WRONG = {"?": "⋆", "@": "∂", "`": "ℓ", "\u01eb": "ϵ"}
_MSAM_ASCII = {".": "≲", "&": "≳", "%": "≈", "-": "≂", "@": "≊", "6": "≤", ">": "≥"}
_MSBM_DOUBLE = {"C": "ℂ", "N": "ℕ", "Q": "ℚ", "R": "ℝ", "Z": "ℤ"}
# Adobe's private-use pieces of big delimiters (cmex through a Unicode map): the top piece names
# the delimiter, the others are dropped.
_PRIVATE_PIECES = {"\uf8eb": "(", "\uf8ee": "[", "\uf8f0": "[", "\uf8f1": "{", "\uf8f6": ")", "\uf8f9": "]",
                   "\uf8fb": "]", "\uf8fc": "}"}


SYMBOL_FONTS = ("CMSY", "CMBSY", "TXSY", "PXSY")
EXTENSION_FONTS = ("CMEX", "TXEX", "PXEX")
MATH_ITALIC_FONTS = ("CMMI", "CMMIB", "TXMI", "RTXMI", "PXMI", "RPXMI")


def math_char(char: str, family: str) -> str | None:
    """The character a math font's glyph stands for ('' for a piece that carries no text), or None
    when `char` is already right."""
    if not char:
        return None
    if ord(char) < 32:
        return glyph_for(ord(char), family)
    if "\ue000" <= char <= "\uf8ff":
        return _PRIVATE_PIECES.get(char, "")
    if family in SYMBOL_FONTS and char in _CMSY_ASCII:
        return _CMSY_ASCII.get(char)
    if family in EXTENSION_FONTS and char.isascii() and (char.isalnum() or char in _CMEX_ASCII):
        return _CMEX_ASCII.get(char, "")
    if family in MATH_ITALIC_FONTS:
        return _CMMI_WRONG.get(char)
    if family in ("MSAM", "TXSYA", "PXSYA"):
        return _MSAM_ASCII.get(char)
    if family == "MSBM":
        return _MSBM_DOUBLE.get(char)
    return None
