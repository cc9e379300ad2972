"""The one way astro loads YAML: a safe loader whose aliases cannot expand into a bomb.

YAML anchors and aliases let 368 bytes stand for 9^9 values (`a: &a [x,x,...]`, `b: &b [*a,*a,...]`,
...). Loading builds only shared references, but anything that walks the result (the trust
fingerprint, `json.dumps`, a settings listing) visits every expansion and never ends. So the
document's node graph is measured before it is constructed: when its aliases expand to more
than MAX_EXPANDED_NODES nodes, or an alias refers to itself, the file is refused as invalid YAML
(a yaml.YAMLError whose `problem` says why), whoever loads it: config files, trust, the key
store, skill and memory frontmatter.
"""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's safe loader is ~10x faster (a cold start with 2,000 memories) and has safe_load's semantics.
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_EXPANDED_NODES = 100_000  # far beyond any hand-written config; a bomb reaches this at once


class AliasBomb(yaml.YAMLError):
    """A document whose aliases expand too far (or into themselves)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = None

    def __str__(self) -> str:
        return self.problem


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, refusing documents whose aliases expand beyond MAX_EXPANDED_NODES."""
    loader = LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node) -> None:
    """Count the nodes of the document as if every alias were copied out; each node is sized once."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()
    # An explicit stack (node, expanded?) instead of recursion: deep nesting must not overflow the stack.
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = _children(node)
        if not expanded:
            if key in in_progress:
                raise AliasBomb("an alias refers to the node that contains it (a recursive alias)")
            in_progress.add(key)
            stack.append((node, True))
            for child in children:
                if id(child) in in_progress and id(child) not in sizes:
                    raise AliasBomb("an alias refers to the node that contains it (a recursive alias)")
                stack.append((child, False))
            continue
        in_progress.discard(key)
        total = 1 + sum(sizes[id(child)] for child in children)
        if total > MAX_EXPANDED_NODES:
            raise AliasBomb(f"its aliases expand to more than {MAX_EXPANDED_NODES:,} values (an alias bomb)")
        sizes[key] = total


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []
