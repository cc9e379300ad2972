"""Lifecycle hooks and plugins: what runs at the loop's seams, from config or from Python packages.

`feature.install(app)` adds the hook extension and /hooks; `plugins.install(app)` loads the
`astro.plugins` entry points (it runs last of all features).
"""
