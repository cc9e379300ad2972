"""NASA ADS query syntax, as astro documents it, translated to arXiv's search_query.

search_papers sends one query to both services. ADS understands `author:"Agol, E"`,
`abs:"hot Jupiter"`, `year:2010-2015`, `(albedo OR recirculation)`, `-HD209458`, `NOT`, quoted
phrases and implicit AND; arXiv has `au:`, `ti:`, `abs:`, `all:`, `AND`, `OR`, `ANDNOT` and
`submittedDate:[... TO ...]`. What arXiv cannot express (property:refereed, bibstem:, citation
counts, first-author-only) is left out of its query and named, so the result notes can say so. A
query already written in arXiv's own syntax (au:, ti:, cat:, all: ...) passes unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ARXIV_ONLY = re.compile(r"(?<![\w:])(ti|au|co|jr|cat|rn|id|all|submitteddate):", re.IGNORECASE)
FIELDS = {"author": "au", "first_author": "au", "title": "ti", "abs": "abs", "abstract": "abs", "full": "all",
          "arxiv_class": "cat"}
_TOKEN = re.compile(
    r'\s*(?:(?P<open>\()|(?P<close>\))'
    r'|(?P<field>[A-Za-z_]+):(?P<caret>\^?)(?:"(?P<fphrase>[^"]*)"|\((?P<fgroup>[^)]*)\)|\[(?P<frange>[^\]]*)\]'
    r'|(?P<fword>[^\s()]+))'
    r'|(?P<sign>[-+]?)"(?P<phrase>[^"]*)"'
    r'|(?P<wsign>[-+]?)(?P<word>[^\s()"]+))'
)
_YEARS = re.compile(r"^\[?\s*(\d{4})?\s*(?:-|\s+TO\s+)?\s*(\d{4})?\s*\]?$", re.IGNORECASE)


@dataclass
class ArxivQuery:
    text: str  # arXiv's search_query; empty when nothing of the query can be searched there
    dropped: list[str] = field(default_factory=list)  # parts of the query arXiv cannot express
    changed: list[str] = field(default_factory=list)  # parts searched more loosely than asked

    def notes(self) -> list[str]:
        """Sentences for the result notes: what arXiv was not asked, and what it was asked loosely."""
        lines = []
        if self.dropped:
            asked = f" (arXiv was asked: {self.text})" if self.text else ""
            lines.append(f"arXiv cannot search by {', '.join(self.dropped)}, so its results ignore that{asked}.")
        return lines + self.changed


def translate(query: str) -> ArxivQuery:
    """The arXiv search_query for an ADS-style query, with what was dropped or loosened."""
    text = query.strip()
    if ARXIV_ONLY.search(text):
        return ArxivQuery(text)
    result = ArxivQuery("")
    result.text = _join(_clauses(text, result, default="all"), result)
    return result


def _clauses(text: str, result: ArxivQuery, default: str) -> list[str]:
    """Clauses, operators and parentheses, each translated to arXiv's form."""
    items: list[str] = []
    for match in _TOKEN.finditer(text):
        if match.group("open"):
            items.append("(")
        elif match.group("close"):
            items.append(")")
        elif match.group("field"):
            items += _field(match, result)
        elif match.group("phrase") is not None:
            phrase = " ".join(match.group("phrase").split())
            if phrase:
                clause = f"au:{_author(phrase)}" if default == "au" else f'{default}:"{phrase}"'
                items += _signed(match.group("sign"), clause)
        elif match.group("word"):
            word = match.group("word")
            if word in ("AND", "OR", "NOT"):
                items.append(word)
            elif re.search(r"\w", word):
                clean = re.sub(r"[^\w.*?-]", "", word)
                items += _signed(match.group("wsign"), f"au:{_author(clean)}" if default == "au" else f"{default}:{clean}")
    return items


def _signed(sign: str, clause: str) -> list[str]:
    return ["NOT", clause] if sign == "-" else [clause]


def _field(match: re.Match[str], result: ArxivQuery) -> list[str]:
    name = match.group("field").lower()
    shown = match.group(0).strip()
    if name == "year":
        years = _YEARS.match(match.group("fword") or match.group("frange") or "")
        if years and (years.group(1) or years.group(2)):
            start, end = years.group(1) or "1991", years.group(2) or years.group(1) or "2999"
            return [f"submittedDate:[{start}01010000 TO {end}12312359]"]
        result.dropped.append(shown)
        return []
    target = FIELDS.get(name)
    if target is None:
        result.dropped.append(shown)
        return []
    value = match.group("fphrase") if match.group("fphrase") is not None else match.group("fword")
    value = " ".join((value or "").split())
    if match.group("caret") or value.startswith("^") or name == "first_author":
        result.changed.append(f"arXiv cannot search by first author: {shown} was searched among all authors.")
        value = value.lstrip("^")
    if match.group("fgroup") is not None:  # author:("A" OR "B") -> (au:A OR au:B)
        inner = _clauses(match.group("fgroup"), result, default=target)
        return ["(", *inner, ")"] if inner else []
    if not value:
        return []
    if target == "au":
        return [f"au:{_author(value)}"]
    return [f'{target}:"{value}"' if " " in value else f"{target}:{value}"]


def _author(name: str) -> str:
    """'Agol, E' -> Agol_E, 'Del Maestro, A.' -> Del_Maestro_A, 'Agol' -> Agol (arXiv's au: form)."""
    surname, _, given = name.partition(",")
    initials = [part[0] for part in re.split(r"[\s.-]+", given) if part]
    words = [w for w in re.split(r"\s+", surname.strip()) if w] + initials
    return "_".join(re.sub(r"[^\w'-]", "", w) for w in words if re.sub(r"[^\w'-]", "", w))


def _join(items: list[str], result: ArxivQuery) -> str:
    """Implicit AND between clauses, NOT as ANDNOT, parentheses balanced, dangling operators gone."""
    out: list[str] = []
    pending = "AND"
    depth = 0
    later: list[str] = []  # negations written first: arXiv cannot start with ANDNOT, so they go last
    for item in items:
        if item in ("AND", "OR"):
            pending = item
        elif item == "NOT":
            pending = "ANDNOT"
        elif item == "(":
            if out and out[-1] not in ("(", "AND", "OR", "ANDNOT"):
                out.append(pending)
            out.append("(")
            depth += 1
            pending = "AND"
        elif item == ")":
            if depth == 0:
                continue
            while out and out[-1] in ("AND", "OR", "ANDNOT"):
                out.pop()
            if out and out[-1] == "(":
                out.pop()  # a group whose every part was dropped
            else:
                out.append(")")
            depth -= 1
            pending = "AND"
        else:
            if out and out[-1] not in ("(", "AND", "OR", "ANDNOT"):
                out.append(pending)
            elif pending == "ANDNOT":  # a negation opening the query or a group
                if depth == 0:
                    later.append(item)
                else:
                    result.dropped.append(f"-{item.split(':', 1)[1]}")
                pending = "AND"
                continue
            out.append(item)
            pending = "AND"
    while out and out[-1] in ("AND", "OR", "ANDNOT", "("):
        out.pop()
    out += [")"] * (out.count("(") - out.count(")"))
    for item in later:
        if out:
            out += ["ANDNOT", item]
        else:
            result.dropped.append(f"-{item.split(':', 1)[1]}")  # only negations: nothing to search for
    return " ".join(out).replace("( ", "(").replace(" )", ")")
