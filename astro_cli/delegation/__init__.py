"""Delegation: subagents, agent definitions and teammates.

`feature.install(app)` wires the tools and the sub-agents prompt section. Lifecycle hooks and
plugins live in `astro_cli/hooks/`.
"""
