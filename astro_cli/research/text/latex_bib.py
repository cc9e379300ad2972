"""The back matter of a LaTeX paper: acknowledgments and references as sections of their own.

A reference list matches every query and answers none, so it must not be filed under the last
section of the paper. `thebibliography` (written in the paper, or the .bbl that BibTeX made and
arXiv ships, pulled in where \\bibliography stands) becomes a "References" section with one
paragraph per entry, `[key] Authors year, Journal, volume, page`, the journal macros of the AAS
(\\apj, \\mnras ...) spelled out. AASTeX's \\acknowledgments, the acknowledgments environments and
their unnumbered \\section* forms become an "Acknowledgments" section.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

# aas_macros.sty: the journal abbreviations AAS journals (and MNRAS, A&A) use in reference lists.
JOURNALS = {
    "aj": "AJ", "actaa": "Acta Astron.", "araa": "ARA&A", "apj": "ApJ", "apjl": "ApJL", "apjs": "ApJS",
    "ao": "Appl. Opt.", "apss": "Ap&SS", "aap": "A&A", "aapr": "A&A Rev.", "aaps": "A&AS", "azh": "AZh",
    "baas": "BAAS", "bac": "Bull. Astron. Inst. Czech.", "caa": "Chinese Astron. Astrophys.",
    "cjaa": "Chinese J. Astron. Astrophys.", "icarus": "Icarus", "jcap": "JCAP", "jrasc": "JRASC",
    "memras": "MmRAS", "mnras": "MNRAS", "na": "New A", "nar": "New A Rev.", "pra": "Phys. Rev. A",
    "prb": "Phys. Rev. B", "prc": "Phys. Rev. C", "prd": "Phys. Rev. D", "pre": "Phys. Rev. E",
    "prl": "Phys. Rev. Lett.", "pasa": "PASA", "pasp": "PASP", "pasj": "PASJ", "psj": "PSJ",
    "rmxaa": "Rev. Mexicana Astron. Astrofis.", "qjras": "QJRAS", "skytel": "S&T", "solphys": "Sol. Phys.",
    "sovast": "Soviet Ast.", "ssr": "Space Sci. Rev.", "zap": "ZAp", "nat": "Nature", "iaucirc": "IAU Circ.",
    "aplett": "Astrophys. Lett.", "apspr": "Astrophys. Space Phys. Res.", "bain": "Bull. Astron. Inst. Netherlands",
    "fcp": "Fund. Cosmic Phys.", "gca": "Geochim. Cosmochim. Acta", "grl": "Geophys. Res. Lett.",
    "jcp": "J. Chem. Phys.", "jgr": "J. Geophys. Res.", "jqsrt": "JQSRT", "memsai": "Mem. Soc. Astron. Italiana",
    "nphysa": "Nucl. Phys. A", "physrep": "Phys. Rep.", "physscr": "Phys. Scr", "planss": "Planet. Space Sci.",
    "procspie": "Proc. SPIE", "aspcs": "ASP Conf. Ser.", "apjlett": "ApJL",
}
ACKNOWLEDGMENTS, REFERENCES = "Acknowledgments", "References"
_ACK_COMMAND = re.compile(r"\\(?:acknowledgments|acknowledgements|acknowledgment|acknowledgement)(?![A-Za-z])")
_ACK_ENV = re.compile(r"\\begin\{(acknowledgments|acknowledgements|acknowledgment|acknowledgement)\}(.*?)\\end\{\1\}",
                      re.DOTALL)
_ACK_SECTION = re.compile(r"\\section\*?\s*\{\s*Acknowledge?ments?\s*\}", re.IGNORECASE)
_BIBLIOGRAPHY = re.compile(r"\\bibliography\s*\{([^}]*)\}")
_THEBIBLIOGRAPHY = re.compile(r"\\begin\{thebibliography\}\s*(?:\{[^}]*\})?(.*?)(?:\\end\{thebibliography\}|\Z)",
                              re.DOTALL)
_BIBITEM = re.compile(r"\\bibitem\s*")
_UNWRAP = ("bibinfo", "bibfield", "bibnamefont", "bibfnamefont", "citenamefont", "textsc", "enquote", "natexlab",
           "bibitemNoStop", "eprint", "emph", "textit", "textbf")
_DROP = re.compile(r"\\(?:BibitemOpen|BibitemShut\s*\{[^}]*\}|EndOfBibitem|newblock|raggedright|providecommand"
                   r"|doibase|bibAnnoteFile\s*\{[^}]*\}|selectlanguage\s*\{[^}]*\})(?![A-Za-z])")


def inline_bbl(body: str, files: dict[str, str], main: str) -> str:
    """`\\bibliography{refs}` replaced by the .bbl BibTeX made (arXiv ships it), when the source has one."""
    if "\\begin{thebibliography}" in body:
        return _BIBLIOGRAPHY.sub("", body)
    bbls = {name: text for name, text in files.items() if name.lower().endswith(".bbl")}
    if not bbls:
        return body
    stem = PurePosixPath(main).with_suffix("").as_posix()

    def include(match: re.Match[str]) -> str:
        for name in (f"{stem}.bbl", *(f"{n.strip()}.bbl" for n in match.group(1).split(","))):
            if name in bbls:
                return bbls[name]
        return next(iter(bbls.values())) if len(bbls) == 1 else ""

    return _BIBLIOGRAPHY.sub(include, body, count=1)


def expand_journals(text: str, own_macros: set[str]) -> str:
    """\\apj -> ApJ and the like, unless the paper defines the macro itself (its own wins)."""
    names = [n for n in JOURNALS if n not in own_macros]
    pattern = re.compile(r"\\(" + "|".join(sorted(names, key=len, reverse=True)) + r")(?![A-Za-z])\s?")
    return pattern.sub(lambda m: JOURNALS[m.group(1)] + (" " if m.group(0).endswith(" ") else ""), text)


def back_matter(body: str) -> str:
    """Acknowledgments and the reference list as unnumbered sections of their own."""
    body = _ACK_ENV.sub(lambda m: f"\\section*{{{ACKNOWLEDGMENTS}}}\n{m.group(2)}\n", body)
    body = _ACK_SECTION.sub(f"\\\\section*{{{ACKNOWLEDGMENTS}}}", body)
    body = _ACK_COMMAND.sub(f"\\\\section*{{{ACKNOWLEDGMENTS}}}\n", body)
    return _THEBIBLIOGRAPHY.sub(lambda m: f"\\section*{{{REFERENCES}}}\n" + _entries(m.group(1)), body)


def _entries(listing: str) -> str:
    """One paragraph per \\bibitem: '[key] the entry', BibTeX's markup unwrapped."""
    out = []
    for piece in _BIBITEM.split(listing)[1:]:
        rest = piece
        if rest.startswith("["):
            rest = rest[_closing(rest, "[", "]") + 1 :].lstrip()
        key = ""
        if rest.startswith("{"):
            end = _closing(rest, "{", "}")
            key, rest = rest[1:end].strip(), rest[end + 1 :]
        text = _clean_entry(rest)
        if text:
            out.append(f"[{key}] {text}" if key else text)
    return "\n\n".join(out) + "\n"


def _closing(text: str, opening: str, closing: str) -> int:
    """Index of the bracket that closes the one at text[0] (nested pairs counted)."""
    depth = 0
    for index, char in enumerate(text):
        if char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return index
    return len(text) - 1


def _clean_entry(text: str) -> str:
    text = _DROP.sub(" ", text)
    text = re.sub(r"\\(?:href|Eprint)\s*\{[^}]*\}", "", text)
    text = re.sub(r"\\url\s*\{([^}]*)\}", r"\1", text)
    for name in _UNWRAP:
        # \bibinfo{author}{X} and \bibfield{journal}{X}: the first argument names the field.
        two = name in ("bibinfo", "bibfield")
        text = re.sub(r"\\" + name + r"\s*" + (r"\{[^{}]*\}\s*" if two else ""), "", text)
    return " ".join(text.split())
