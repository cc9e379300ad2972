"""Which BibTeX entry a paper is, and the facts only some kinds have (school, proceedings).

NASA ADS says what a record is (its `doctype`: article, phdthesis, inproceedings, software...);
the entry type follows ADS's own table (adsabs/export_service bibTexFormat.py). A paper known
only from arXiv is read from what the authors wrote: a comment or journal reference "PhD thesis,
University of X" is a thesis, "Proc. IAU Symp. 330" or "SPIE Conf. Ser." a paper in proceedings,
a Zenodo or ASCL record software; with a journal reference it is an article, else an e-print.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

ADS_TYPES = {
    "article": "ARTICLE", "circular": "ARTICLE", "newsletter": "ARTICLE", "bookreview": "ARTICLE",
    "erratum": "ARTICLE", "obituary": "ARTICLE", "eprint": "ARTICLE", "catalog": "ARTICLE", "editorial": "ARTICLE",
    "book": "BOOK", "inbook": "INCOLLECTION", "proceedings": "PROCEEDINGS", "inproceedings": "INPROCEEDINGS",
    "abstract": "INPROCEEDINGS", "misc": "MISC", "proposal": "MISC", "pressrelease": "MISC", "talk": "MISC",
    "software": "software", "dataset": "dataset", "phdthesis": "PHDTHESIS", "mastersthesis": "MASTERSTHESIS",
    "techreport": "TECHREPORT", "intechreport": "MISC", "instrument": "MISC", "service": "MISC",
}
PHD = re.compile(r"\b(ph\.?\s?d\.?|doctoral|doctorate)\s*(thesis|dissertation)\b|\bdissertation\b", re.IGNORECASE)
MASTERS = re.compile(r"\b(master'?s?|m\.?sc\.?|diploma)\s*(thesis|dissertation)\b", re.IGNORECASE)
PROCEEDINGS = re.compile(
    r"\b(proc(eedings)?\.?|conf(erence)?\.?\s*(ser(ies)?|proc)|symp(osium)?\.?|workshop|colloq(uium)?|"
    r"meeting|spie|asp\s*conf|iau\s*symp|in\s*:)", re.IGNORECASE)
JOURNAL_PROCEEDINGS = re.compile(  # journals named "Proceedings": PNAS, Proc. R. Soc., Proc. IEEE
    r"\bproc(eedings)?\.?\s*(of\s*the\s*)?(natl|national|r\.|roy|royal|ieee\b|japan|amer|am\.|camb)",
    re.IGNORECASE)
PAGES_IN_TEXT = re.compile(r"[,.]?\s*\b(?:pp?\.|pages?)\s*(\d+)\s*[-–]+\s*(\d+)", re.IGNORECASE)
SCHOOL = re.compile(
    r"([^,;()]*\b(universit\w*|univ\.|institut\w*|college|school|ecole|école|observatory|academy|"
    r"politecnico|polytechnic|eth)\b[^,;()]*(?:,\s*[A-Z][\w-]+(?:\s[A-Z][\w-]+)?)?)", re.IGNORECASE)

if TYPE_CHECKING:
    from astro_cli.research.records import Paper


def biblio(paper: Paper) -> dict[str, Any]:
    """The paper's bibliographic facts (ADS's doctype, month, publisher...), a free mapping by name."""
    return dict(paper.biblio)


def entry_type(paper: Paper, published: bool) -> str:
    """ARTICLE, PHDTHESIS, INPROCEEDINGS, BOOK, MISC, software...: ADS's doctype first, else arXiv's words."""
    facts = biblio(paper)
    doctype = str(facts.get("doctype") or "")
    if doctype in ADS_TYPES:
        kind = ADS_TYPES[doctype]
        return "MISC" if kind == "TECHREPORT" and not facts.get("publisher") else kind
    said = " ".join(str(x) for x in (facts.get("comment"), paper.journal_ref) if x)
    if MASTERS.search(said):
        return "MASTERSTHESIS"
    if PHD.search(said):
        return "PHDTHESIS"
    ref = str(paper.journal_ref or "")
    if PROCEEDINGS.search(ref) and not JOURNAL_PROCEEDINGS.search(ref):
        return "INPROCEEDINGS"
    doi = str(paper.doi or "").lower()
    if doi.startswith("10.5281/zenodo.") or str(facts.get("eid") or "").startswith("ascl:"):
        return "software"
    if published or paper.arxiv_id:
        return "ARTICLE"
    return "MISC"


def school_of(paper: Paper) -> str | None:
    """The school of a thesis: ADS's affiliation, else the university named beside 'thesis'."""
    facts = biblio(paper)
    if facts.get("school"):
        return str(facts["school"])
    for text in (facts.get("comment"), paper.journal_ref, facts.get("pub_raw")):
        match = SCHOOL.search(str(text or ""))
        if match:
            return match.group(1).strip(" .")
    return None


def booktitle_of(paper: Paper, split_journal: str | None = None) -> str | None:
    """The proceedings a paper appeared in: ADS's publication, else arXiv's journal reference (its
    name when the reference split into name, volume and page; else the text without its pages)."""
    facts = biblio(paper)
    if facts.get("pub"):
        return str(facts["pub"])
    if paper.journal:
        return str(paper.journal)
    ref = split_journal or PAGES_IN_TEXT.sub("", str(paper.journal_ref or "")).strip(" ,.")
    ref = re.sub(r"[,.]?\s*\(?(18|19|20)\d\d\)?$", "", ref).strip(" ,")  # the year has its own field
    return re.sub(r"^\s*in\s*:?\s*", "", ref, flags=re.IGNORECASE) or None


def pages_in_text(paper: Paper) -> str | None:
    """'pp. 66-69' in a proceedings reference: '66-69'."""
    match = PAGES_IN_TEXT.search(str(paper.journal_ref or ""))
    return f"{match.group(1)}-{match.group(2)}" if match else None
