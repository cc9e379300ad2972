"""Per-session feature state, found by type instead of by string.

Each feature keeps what it remembers about one session (the skills it activated, its team of
teammates, the compaction engine) in an object of its own class. `states.get(SkillsState)`
makes it on first use; `states.put(obj, kind)` stores an object made elsewhere, for example
under a Protocol the reader knows (the compaction engine as a `Compactor`). The mechanism is
the app services' own (by_kind.py); nothing here knows any feature, so every layer may import it.
"""

from __future__ import annotations

from astro_cli.by_kind import ByKind


class SessionStates(ByKind):
    """One object per class for one session."""
