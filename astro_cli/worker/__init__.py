"""The warm worker: `astro run` without paying for `import litellm` on every call.

A per-user fork server keeps litellm and astro's features imported (and nothing else: no threads,
no files, no keys). `astro run` starts as a thin client (client.py) that hands the worker its
arguments, working folder, environment and terminal descriptors; the worker forks one child per
run (child.py) that becomes exactly the process `astro run` would have been, and reports its exit
status back. Anything that prevents this makes the client run the command in its own process, as
before. docs/worker.md explains it for users.

Modules: paths (where the socket lives), protocol (frames on the socket), client, server,
child, process_state (what a child takes over from its client), preload (what the worker imports
and what that import did), lifecycle (starting, probing, stopping).
"""
