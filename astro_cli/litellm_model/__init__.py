"""The one adapter of the Model port (agent/model.py) over litellm, and the only place that imports it.

`import litellm` costs about 4 s and 200 MB: loader.py imports it, lazily, when a model is about to be
called. Other modules reach a model through agent/model.py (`open_model`); the few that need the
adapter's own doors (warming the import, the worker's preload, the token counter) are listed in
tests/structure/test_structure_model.py with their reasons.
"""
