"""Plan steps are not literature claims: "2. Download the 3 studies that measured the zero point."

A step of a plan says what will be done, not what is known, so its numbers are counts of work to do
and its "studies that measured ..." names what to look for. Without a citation it is not a claim
(grounding.ground drops it): no claim-check nudge (an extra request, the answer printed twice), no
"uncited" line. A step is a sentence or list item
that starts, after its marker, with an instruction verb, or with "I will", "we'll", "let me".
"""

from __future__ import annotations

import re

_VERBS = (
    "search|download|fetch|get|read|re-read|open|compare|fit|refit|compute|calculate|plot|query|list|collect|"
    "gather|extract|check|verify|find|look|summari[sz]e|review|write|draft|build|run|select|identify|retrieve|"
    "cross-?match|tabulate|estimate|tally|rank|sort|filter|note|record|ask|confirm|start|begin|continue|"
    "use|load|save|export|import|add|cite|quote|go|make|prepare|outline|scan|skim|survey|test|try|rerun"
)
_STEP = re.compile(
    r"^\s*(?:[-*+•]\s*|\d+[.)]\s*|step\s+\d+\s*[:.)-]?\s*)?"  # a list marker or "Step 2:"
    r"(?:\*\*[^*\n]{1,60}\*\*\s*[:.\u2014-]?\s*)?"  # a bold lead-in: "**Search**: ..."
    r"(?:(?:first|then|next|finally|after\s+that|afterwards|now),?\s+)?"
    r"(?:\*\*|__)?"  # "**Search** ADS ..."
    rf"(?:(?:i|we)\s*(?:will|'ll|’ll|would|shall|plan\s+to|intend\s+to|am\s+going\s+to|are\s+going\s+to)\b|"
    rf"let(?:'s|’s|\s+me|\s+us)\b|(?:{_VERBS})\b)",
    re.IGNORECASE,
)


def is_plan_step(sentence: str) -> bool:
    """Whether `sentence` says what will be done (a plan's step) rather than what is known."""
    return _STEP.match(sentence) is not None
