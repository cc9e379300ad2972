"""The rules for claims without a changed number, run on what the cheap check would call supported (stop 54).

A claim can keep every number of its passage and still not be what it says: a comparison turned around
(directions.py), a negation added or dropped (negated.py) or written as a prefix (prefixed.py: `unresolved`), another instrument, survey or object named in the
place of the passage's (named.py). Each returns a reason; a rule that could only find a weak match says
`undecided` (reported unverified), never supported.
"""

from __future__ import annotations

from astro_cli.citations.absent_names import absent_name_reason
from astro_cli.citations.authored import author_reason
from astro_cli.citations.claims import Claim
from astro_cli.citations.directions import direction_reason
from astro_cli.citations.named import name_reason
from astro_cli.citations.negated import negation_verdict
from astro_cli.citations.prefixed import prefix_reason
from astro_cli.citations.told_of import parenthesis_reason, told_of_reason
from astro_cli.citations.versions import version_reason


def word_verdict(claim: Claim, passage: str) -> tuple[str, str] | None:
    """(`unsupported` or `undecided`, why) when the claim's words contradict the passage; None when they may not."""
    why = direction_reason(claim, passage)
    if why is not None:
        return "unsupported", why
    why = (name_reason(claim, passage) or told_of_reason(claim, passage) or parenthesis_reason(claim, passage)
           or author_reason(claim, passage) or prefix_reason(claim, passage) or absent_name_reason(claim, passage)
           or version_reason(claim, passage))
    if why is not None:
        return "unsupported", why
    return negation_verdict(claim, passage)
