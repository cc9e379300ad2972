"""Context compaction (003 section 6): what is sent shrinks near the window; what is stored never does.

layers.py   the four layers as pure functions over message lists, and the safe cut point finder
tokens.py   token accounting (litellm's counter, the provider's usage, an estimate without litellm)
window.py   the context window (config 'context_window' or litellm's model info)
summary.py  the layer-2 summarizing request (same system prompt and tools, instruction last)
restore.py  what is re-injected after a compaction (identity, loaded skills, task state)
records.py  the `compactions` table and the transcript section of `astro sessions show`
engine.py   the loop extension that keeps the compacted view, and the circuit breaker
feature.py  install(app): the extension, the compress_context tool, /compact
"""
