"""Query expansion with the field's words: a researcher's everyday phrase -> the terms papers use.

A question in plain words ("how much light do they bounce back") shares no word with the passage
that answers it ("Bond albedo"), so BM25 cannot find it and a small embedding model often does
not either. This curated table adds the technical terms to an extra BM25 phrasing, fused with
the others (search.py); the question's own rankings stay. The table is general astronomy and
statistics vocabulary, written against the issue-15 question set (library_questions.json), where
it lifts paraphrased top-3 from 14 to 22 of 24 (BM25); on the held-out set it moved nothing
(BM25) or cost one question (hybrid), so it is opt-in: `library.synonyms` (benchmarks/RESULTS.md,
issue 30). A group can grow it for its field: each entry is a regex over the lower-cased question.
"""

from __future__ import annotations

import re

# (pattern over the lower-cased question, terms papers use for it)
TABLE: tuple[tuple[str, str], ...] = (
    # planets and stars
    (r"\bworlds?\b", "planets"),
    (r"\bsuns?\b", "star stellar host"),
    (r"\bhost stars?\b", "stellar"),
    (r"\bbounce[sd]? back\b|\breflect(s|ed|ing)?\b|\bhow much light\b", "albedo reflected"),
    (r"\b(carry|carrying|spread|move|moving|transport)\w* (the )?(heat|warmth|energy)\b|\bfar side\b",
     "heat redistribution recirculation efficiency day-night"),
    (r"\bhotter or colder\b|\bthan expected\b|\bodd ones?\b", "outliers"),
    (r"\bwarm layers?\b|\bhot layers?\b", "temperature inversion stratosphere"),
    (r"\bbrightness\b", "flux brightness temperature"),
    (r"\bclose-in\b|\bnear to their (star|sun)s?\b", "short-period"),
    (r"\bskew\w*\b|\bbias\w*\b", "systematic uncertainties"),
    # sampling and statistics
    (r"\bchains?\b", "walkers ensemble"),
    (r"\b(share|fraction|proportion) of (proposals|jumps|steps|moves)\b|\b(jumps|proposals|moves) (are )?(taken|kept|accepted)\b",
     "acceptance fraction accepted"),
    (r"\bhardly any\b|\btoo few\b.*\b(jumps|steps)\b", "low acceptance fraction"),
    (r"\bpackage\b|\bonto my (computer|machine|laptop)\b|\bset up the code\b", "install installation pip"),
    (r"\b(processor|cpu) cores?\b|\bseveral (processors|cores|machines)\b|\bat once\b", "parallel parallelize"),
    (r"\bbegin\b|\bstart(ing)? (point|positions?)\b|\bwhere should .* start\b", "initialization initialize"),
    (r"\bhow long\b|\bkeep it going\b|\benough steps\b", "autocorrelation time run steps"),
    (r"\btrust\b", "convergence"),
    (r"\bstretched or skewed\b|\bstretched\b|\bskewed\b|\bindifferent\b", "affine invariant anisotropic"),
    (r"\bstruggle\w*\b|\bfail\w*\b|\bbreak(s)? down\b", "limitation won't perform multi-modal"),
    (r"\berror bars?\b", "uncertainties samples"),
    # condensed matter and theory
    (r"\bblow(s)? up\b|\bblowing up\b", "diverge divergence diverging"),
    (r"\bresponse to a uniform field\b", "susceptibility"),
    (r"\bstrongly correlated\b", "dynamical mean field theory DMFT"),
    (r"\bexcitations?\b", "spectral function gap gapless"),
    (r"\btransition\b", "critical point quantum phase transition"),
    (r"\btree-like\b", "Bethe lattice"),
    (r"\bsheets?\b|\bstacks? of\b", "layered planes"),
    (r"\bwires?\b", "chains one-dimensional"),
)
_COMPILED = tuple((re.compile(pattern), terms) for pattern, terms in TABLE)


def expansion(question: str) -> str | None:
    """The technical terms the table adds to a question, or None when no entry matches
    (terms the question already has are not repeated)."""
    text = question.lower()
    present = set(re.findall(r"\w+", text))
    added: list[str] = []
    for pattern, terms in _COMPILED:
        if pattern.search(text):
            added += [t for t in terms.split() if t.lower() not in present and t not in added]
    return " ".join(added) or None
