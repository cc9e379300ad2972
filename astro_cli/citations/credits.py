"""Does a sentence credit the literature? Then it is a claim even with no number and no citation (issue 43).

Three shapes, each a rule rather than a list of phrases:
- a body of work or its people as the subject of a verb of finding or arguing, in any tense: "studies show",
  "earlier work suggests", "several groups have reported", "observations suggest", "previous studies find",
  "a growing body of work suggests";
- a hedged passive that leaves the source unnamed: "X has been shown to", "X is (widely) thought to",
  "X is believed to", "X is known to", "X is generally attributed to", "X is commonly interpreted as", "X was first
  predicted by", "it has been suggested that";
- a field's practitioners holding a view: "solar physicists broadly agree that", "most authors now take it as
  given that", "there is little doubt among X that";
- impersonal credit: "it is well established", "according to previous studies", "there is evidence that",
  "a consensus that", "the literature shows", "as is (well) known".
The paper's own statements are not the literature: "this study finds", "our analysis suggests", "the authors show"
(a subject with `this`, `our`, `the`...) and "we have shown" are not claims by these words.
"""

from __future__ import annotations

import re

_QUALIFIED = (r"(?:earlier|previous|prior|past|recent|many|several|numerous|most|other|published|some|various|"
              r"independent|existing|later|subsequent|multiple)\s+(?:\w+\s+)?(?:works?|stud(?:y|ies)|papers?|authors|"
              r"analys[ie]s|surveys?|observations|models|simulations|results|measurements|groups|teams|research|"
              r"investigations|efforts|estimates)")
_BARE = (r"(?:stud(?:y|ies)|research|observations?|theor(?:y|ies)|simulations|models|surveys|measurements|"
         r"(?:\w+\s+)?literature|body\s+of\s+(?:\w+\s+)?(?:work|evidence|literature|research|observations))")
_VERB = (r"(?:(?:have|has|had)\s+(?:long\s+|also\s+|consistently\s+|repeatedly\s+|previously\s+)?)?"
         r"(?:show(?:s|ed|n)?|f(?:ind|inds|ound)|suggest(?:s|ed)?|indicat(?:e|es|ed)|reveal(?:s|ed)?|"
         r"demonstrat(?:e|es|ed)|confirm(?:s|ed)?|argu(?:e|es|ed)|reports?(?:ed)?|establish(?:es|ed)?|"
         r"conclud(?:e|es|ed)|propos(?:e|es|ed)|predict(?:s|ed)?|impl(?:y|ies|ied)|point(?:s|ed)?\s+to|not(?:e|es|ed)|"
         r"claim(?:s|ed)?|place[sd]?)\b")
# a body of work as the subject; its determiner is checked apart (`this study finds` is the paper's own)
_SUBJECT = re.compile(r"\b(?:" + _QUALIFIED + r"|" + _BARE + r"|(?:astronomers|researchers|scientists|observers|theorists|modell?ers)"
                      r"(?:\s+(?:have\s+)?(?:long\s+)?(?:agree|known)\b)?)\s+" + _VERB, re.IGNORECASE)
_OWN = re.compile(r"\b(?:this|these|our|my|your|the|its|their|present|current)\s+$", re.IGNORECASE)
_HEDGED = re.compile(
    r"\b(?:(?:is|are|was|were|has\s+been|have\s+been|had\s+been)\s+(?:(?:widely|generally|commonly|often|usually|"
    r"long|now|first|previously|also|repeatedly|broadly|well)\s+)?(?:(?:thought|believed|known|understood|"
    r"suspected|shown|argued|suggested|predicted|demonstrated|expected\s+by\s+theory)\s+(?:to|that)\b|"
    r"(?:attributed)\s+to\b|(?:interpreted|regarded|considered)\s+as\b|(?:proposed|suggested|predicted|"
    r"discovered|confirmed|demonstrated|argued|shown|established)\s+by\b))",
    re.IGNORECASE,
)
_IMPERSONAL = re.compile(
    r"\b(?:(?:it\s+is|it's|it\s+has\s+(?:long\s+)?been)\s+(?:(?:well|long|widely|generally|commonly|firmly|often|usually|frequently)[\s-]+)?"
    r"(?:established|known|accepted|documented|recognized|recognised|understood|shown|demonstrated|believed|"
    r"argued|suggested|assumed|claimed|held|thought|agreed|noted|reported|proposed|presumed)|(?:is|are)\s+(?:widely|generally|commonly|broadly|well)\s+"
    r"(?:accepted|known|established|believed|thought|agreed)|(?:widely|generally|commonly)\s+(?:accepted|believed|"
    r"agreed)|the\s+literature\s+(?:shows|suggests|agrees|reports)|according\s+to\s+(?:the\s+)?(?:literature|"
    r"(?:earlier|previous|prior|past|recent|many|several|most|published|other)\s+\w+)|"
    r"consensus\b[^.;]{0,60}?\bthat|(?:broad|general|wide|widespread|growing|standard|prevailing|conventional|"
    r"canonical|accepted|common|popular|traditional|consensus)\s+(?:\w+\s+)?(?:consensus|agreement|view|picture|"
    r"paradigm|wisdom|belief|understanding|interpretation|assumption|scenario)\b[^.;]{0,60}?\b(?:that|is|holds)|"
    r"as\s+(?:is|was|has\s+(?:long\s+)?been)\s+(?:(?:well|widely|generally|long|commonly)[\s-]+)?(?:known|established|"
    r"documented|recognized|recognised)|"
    r"well[\s-]known\s+(?:result|fact|relation|correlation|finding|problem|effect|trend|tension|discrepancy)|"
    r"there\s+is\s+(?:(?:growing|strong|some|ample|mounting|increasing|good|observational|clear)\s+)?evidence\s+"
    r"(?:that|for)|(?:astronomers|researchers|scientists)\s+(?:have\s+)?(?:long\s+)?"
    r"(?:found|shown|established|agree|argued|known))\b",
    re.IGNORECASE,
)


# a field's practitioners agreeing, as a consensus (stop 54 follow-up): "solar physicists broadly agree that",
# "simulators have long agreed that", "there is little doubt among Galactic archaeologists that". A plural of
# people by its ending (-ists, -ers, -ors, -ians) is a subject only before a verb of holding a view and `that`.
_PEOPLE = (r"(?:(?!(?:this|these|those|our|my|your|the|its|their|both|all|two|we)\b)[A-Za-z]+\s+)?"
           r"[A-Za-z]+(?:ists|ers|ors|ians)|the\s+(?:community|field)")
_CONSENSUS = re.compile(
    r"\b(?:" + _PEOPLE + r")\s+(?:(?:have|has|had)\s+)?(?:(?:long|broadly|generally|widely|largely|mostly|now|"
    r"increasingly|all)\s+)?(?:agree[ds]?|believe[ds]?|accept(?:s|ed)?|hold|held|think|thought|assume[ds]?|"
    r"expect(?:s|ed)?|doubt(?:s|ed)?|(?:take[ns]?|took)\s+(?:it\s+)?(?:as\s+(?:given|read|settled)|for\s+granted))"
    r"\s+(?:on\s+)?that\b"
    r"|\bthere\s+(?:is|are|was|has\s+been)\s+(?:little|no|small)\s+doubt\b[^.;]{0,60}?\bthat\b",
    re.IGNORECASE,
)


def credits_literature(sentence: str) -> bool:
    """Whether the sentence credits its statement to the literature (and not to the paper it discusses)."""
    if _IMPERSONAL.search(sentence) or _HEDGED.search(sentence):
        return True
    if any(not _OWN.search(sentence[max(0, m.start() - 12):m.start()]) for m in _CONSENSUS.finditer(sentence)):
        return True
    return any(not _OWN.search(sentence[max(0, m.start() - 12):m.start()]) for m in _SUBJECT.finditer(sentence))
