"""The one list of words a question's search terms leave out (library full-text search, memory selection).

English function words, plus the words a researcher puts around every request ("find papers",
"show me", "please tell"), which would otherwise match almost every paper and every memory.
"""

from __future__ import annotations

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers him his how i if in into is it its itself just me more most my no nor
    not now of off on once only or other our out over own same she should so some such than that the
    their them then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your paper papers authors author find show
    shows tell please give use using""".split()
)
