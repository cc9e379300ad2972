"""The claim ledger of an answer: each claim with a status, and the passage behind it.

- supported: the passage it cites (by handle, or any passage read from the paper it cites) was
  shown in this session and states its quantities, names and key terms (support.py; several
  handles are read together), or the model judge said so (judge.py);
- unsupported: the cited passage was read and does not say it (a changed number, another
  object, another subject, a bound turned around, a negation, another study's value);
- unverified: the cited passage was read, but the cheap check cannot tell whether it says it (it
  paraphrases with other words); the judge decides it when on, else it stays unverified, never
  supported (stop 53: it was reported unsupported, which is a verdict the check did not reach);
- uncited: it states a number or result, or credits the literature, and cites nothing;
- not_read: it cites a passage or paper whose text no tool showed in this session (a handle from
  another session or an invented one, a paper only named).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.citations.agree import Stated
from astro_cli.citations.claims import Claim, split_claims
from astro_cli.citations.handles import where_label
from astro_cli.citations.plan import is_plan_step
from astro_cli.citations.support import Verdict, all_stated, best_verdict, data_stated, union_verdict
from astro_cli.research.identifiers import record_keys

if TYPE_CHECKING:
    from astro_cli.citations.check import CheckResult
    from astro_cli.citations.ledger import CitationLedger

CLAIM_STATUSES = ("supported", "unsupported", "unverified", "uncited", "not_read")
OWN_WORK = re.compile(r"\b(?:I|we)\s+(?:compute|computed|calculate|calculated|estimate|derive|derived|obtain|get)\b|"
                      r"\((?:computed|my calculation|our calculation|own calculation|estimated here)\)", re.IGNORECASE)
EXCERPT = 300


@dataclass
class ClaimCheck:
    claim: Claim
    status: str
    handle: str | None = None  # the passage it was checked against
    passage: str | None = None
    reason: str = ""
    decided_by: str = "lexical"  # lexical | judge | undecided | none
    reader: str | None = None  # the cited handles as the reader sees them: "Cowan & Agol 2010, p. 1"

    def as_dict(self) -> dict[str, Any]:
        return {"claim": self.claim.text, "status": self.status, "handles": list(self.claim.handles),
                "reader": self.reader, "cites": [c.label for c in self.claim.cites], "handle": self.handle,
                "passage": _excerpt(self.passage), "reason": self.reason, "decided_by": self.decided_by}


@dataclass
class Grounding:
    claims: list[ClaimCheck]
    evidence_read: bool  # whether any passage was shown in the session
    unread_sentences: int = 0  # past MAX_CLAIMS
    extra_notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {s: sum(1 for c in self.claims if c.status == s) for s in CLAIM_STATUSES}

    def flagged(self) -> list[ClaimCheck]:
        return [c for c in self.claims if c.status != "supported"]

    def to_nudge(self) -> list[ClaimCheck]:
        """The claims the model is asked to fix. Uncited ones in a literature answer (the session
        read passages, or the answer cites something), and anywhere when the sentence credits its
        result to the literature or to observations ("as established by JWST"). Any other number in
        an answer with no literature at all is more often the researcher's data or the model's
        arithmetic; it is reported, with "no evidence retrieved", and not nudged."""
        literature = self.evidence_read or any(c.claim.cited for c in self.claims)
        return [c for c in self.flagged() if c.status != "uncited" or literature or c.claim.attributed]

    def notes(self) -> list[str]:
        notes = list(self.extra_notes)
        if self.unread_sentences:
            notes.append(f"the claim check read the first {len(self.claims)} claims; {self.unread_sentences} more "
                         "sentences were not checked")
        return notes

    def undecided(self) -> list[ClaimCheck]:
        return [c for c in self.claims if c.decided_by == "undecided"]


def _excerpt(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT].rsplit(" ", 1)[0] + " …"


def _names(record: dict[str, Any], paper: str | None) -> set[str]:
    names = {value.lower() for _, value in record_keys(record)}
    names |= {str(record[k]).lower() for k in ("id", "arxiv_id", "bibcode", "doi") if record.get(k)}
    if paper:
        names.add(paper.lower())
    return names


def ground(ledger: CitationLedger, answer: str, checked: CheckResult) -> Grounding:
    """Every claim of `answer` with its status, against the passages the session's tools showed."""
    claims, unread = split_claims(answer, checked.found_at)
    claims = [c for c in claims if c.cited or not is_plan_step(c.text)]  # "2. Download the 3 studies ..."
    values: list[Stated] = []

    def data_values() -> Stated:
        if not values:
            values.append(data_stated(ledger.data_texts))
        return values[0]

    by_cite = {c.cited: c for c in checked.citations}
    out: list[ClaimCheck] = []
    for claim in claims:
        reader: str | None = None
        if claim.handles:
            shown = [(h, p) for h in claim.handles if (p := ledger.passage(h)) is not None]
            read = [(h, p.text) for h, p in shown]
            reader = "; ".join(dict.fromkeys(p.ref.short_cite() + where_label(h) for h, p in shown)) or None
            if not read:
                out.append(ClaimCheck(claim, "not_read", claim.handles[0], reason=(
                    "no tool showed this passage in this session")))
                continue
        elif claim.cited:
            read = []
            catalogue = False
            for cited in claim.cites:
                citation = by_cite.get(cited)
                if citation is None or citation.status not in ("verified", "resolved"):
                    continue
                catalogue = catalogue or bool(citation.record.get("catalogue"))
                names = _names(citation.record, citation.paper)
                read += [(p.handle, p.text) for p in ledger.passages_of(names)]
            if not read and catalogue:  # a catalogue a tool queried (issue 33): its numbers are the evidence
                out.append(_from_catalogue(claim, data_values()))
                continue
            if not read:
                out.append(ClaimCheck(claim, "not_read", reason="no text of the cited paper was read in this session"))
                continue
        else:
            if OWN_WORK.search(claim.text) or _from_data(claim, data_values()):
                continue  # the model's own computation, or numbers from the researcher's files and tools
            out.append(ClaimCheck(claim, "uncited", reason="states a result without a citation", decided_by="none"))
            continue
        handle: str | None
        text: str | None
        if claim.handles and len(read) > 1:  # `[c9; c11]`: the passages together
            verdict, handle, text = union_verdict(claim, read), "; ".join(h for h, _ in read), "\n\n".join(
                t for _, t in read)
        else:
            verdict, handle = best_verdict(claim, read)
            text = next((t for h, t in read if h == handle), None)
        out.append(_from_verdict(claim, verdict, handle, text, reader))
    return Grounding(out, bool(ledger.passages), unread)


def _from_verdict(claim: Claim, verdict: Verdict, handle: str | None, text: str | None,
                  reader: str | None) -> ClaimCheck:
    if verdict.status == "undecided":
        return ClaimCheck(claim, "unverified", handle, text, "could not be confirmed: " + verdict.reason,
                          "undecided", reader)
    return ClaimCheck(claim, verdict.status, handle, text, verdict.reason, reader=reader)


def _from_catalogue(claim: Claim, values: Stated) -> ClaimCheck:
    """A claim citing a catalogue (query_catalog's sources): supported when the session's catalogue
    and data results hold every number it states."""
    if _from_data(claim, values):
        return ClaimCheck(claim, "supported", reason="its numbers are in the catalogue results of this session")
    return ClaimCheck(claim, "unsupported", reason="the catalogue results of this session do not hold all of its "
                      "numbers")


def _from_data(claim: Claim, values: Stated) -> bool:
    """Whether every quantity of an uncited claim is in a non-literature tool result (a file, a table)."""
    return bool(claim.quantities) and all_stated(claim, values)
