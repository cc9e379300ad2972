"""Delegation and control: subagents, agent definitions, teammates, lifecycle hooks and plugins.

`feature.install(app)` wires the tools, the sub-agents prompt section and the hook extension;
`plugins.install(app)` loads the `astro.plugins` entry points (it runs last of all features).
"""
