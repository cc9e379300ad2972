"""Whether a request asks to be told something, or asks for a change (a note, a task, a memory saved).

Recorded (issue 48, stop 52 held-out half, Qwen2.5-Coder-1.5B): "On which night did we have the best
seeing? The log is obs/2024B/night_log.csv." ends with a statement, so the old test (the text ends with
`?`) took it for an instruction; offered the tools that write, the model saved a note nobody asked for,
then described (3 of 14 tasks). A request is a question when one of its sentences asks (it ends with `?`,
or opens with a question word or a verb that asks to be told: what, how many, give, tell, find...) and
none of its clauses asks for a change: an imperative verb that writes (save, add, note, remember,
record, put...) opening a sentence or a clause ("... and add a task"). "Did I write" is no change: the
verb is not where an order stands. "Add up" is arithmetic, not an addition to anything.

A change may be asked for with no verb that writes (stop 54 held-out, task_last_unchecked and
memory_jupiter_masses): a thing turned into another ("Turn X into a task", "convert ... into a note"),
or a standing instruction ("For every future session: ...", "from now on ...", "keep in mind that ...")
in a sentence that does not ask (no `?`).
"""

from __future__ import annotations

import re

# Words opening a sentence that asks to be told (a question word, an auxiliary, a verb of telling).
ASKING_OPENINGS = frozenset({
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was", "were", "does",
    "do", "did", "can", "could", "would", "will", "should", "has", "have", "give", "tell", "find", "show", "list",
    "summarise", "summarize", "explain", "describe", "cite", "count", "look", "according", "quote", "name",
    "compare", "check", "read"})
# Imperative verbs that change something a later session keeps (files, notes, memory, tasks).
CHANGE_VERBS = frozenset({
    "save", "add", "note", "remember", "record", "write", "put", "keep", "store", "make", "create", "plan",
    "update", "delete", "remove", "append", "schedule", "mark", "edit", "rename", "move", "copy",
    "download", "fetch", "memorise", "memorize", "jot"})
# What may stand before an imperative verb at a clause's start ("please", "can you", "and then").
_LEAD = (r"(?:(?:please|kindly|also|then|now|just|and|so|can you|could you|would you|will you|you should"
         r"|i (?:need|want|would like) you to|i'd like you to)\s+)*")
_CLAUSE_START = re.compile(r"(?:^|[.!?;:,]\s+|\band\s+|\bthen\s+|\n\s*)" + _LEAD + r"([a-z]+)(:?)(?:\s+(\w+))?",
                           re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")
# A sentence's opening, after words that only soften it ("please tell me", "so which ...").
_OPENING = re.compile(r"\s*(?:(?:please|kindly|so|now|also|and|ok|okay)[\s,]+)*([a-z]+)", re.IGNORECASE)
# "I need / want / would like to know ...": a wish to be told, said without a question mark.
_WISH_TO_KNOW = re.compile(r"^\s*i(?: would|'d)? (?:need|want|like|wonder)\b(?! you to)", re.IGNORECASE)
# A verb that, with this word after it, changes nothing ("add up" sums).
_NOT_A_CHANGE = frozenset({("add", "up")})
# A clause that turns one thing into another ("Turn the last item into a task").
_BECOMES = re.compile(r"(?:^|[.!?;:,]\s+|\band\s+|\n\s*)" + _LEAD + r"(?:turn|convert)\b(?:[^.!?;\n]|[.](?=\S))*\binto\b",
                      re.IGNORECASE)
# Words that make a statement a standing instruction, to be kept for later sessions.
_STANDING = re.compile(r"\b(?:(?:for|in) (?:every|all|each|any|the) (?:future|later|next|coming) sessions?"
                       r"|from now on|going forward|(?:keep|bear) in mind|always remember)\b", re.IGNORECASE)


def asks(request: str) -> bool:
    """The request asks to be told (a sentence of it asks), and asks for no change."""
    return asks_anything(request) and not asks_for_change(request)


def asks_anything(request: str) -> bool:
    """A sentence of the request ends with `?` or opens with a word that asks."""
    for sentence in _SENTENCE.findall(request):
        if sentence.rstrip().endswith("?") or _WISH_TO_KNOW.search(sentence):
            return True
        opening = _OPENING.match(sentence)
        if opening is not None and opening.group(1).lower() in ASKING_OPENINGS:
            return True
    return False


def asks_for_change(request: str) -> bool:
    """A sentence or clause of the request opens with a verb that writes (save, add, remember...), turns
    a thing into another, or is a standing instruction (a sentence with no `?`)."""
    if _BECOMES.search(request) or any(_STANDING.search(sentence) and not sentence.rstrip().endswith("?")
                                       for sentence in _SENTENCE.findall(request)):
        return True
    for match in _CLAUSE_START.finditer(request):
        verb, label, after = match.group(1).lower(), match.group(2), (match.group(3) or "").lower()
        # "Note: the log is ..." labels what follows; "add up" sums.
        if verb in CHANGE_VERBS and not label and (verb, after) not in _NOT_A_CHANGE:
            return True
    return False
