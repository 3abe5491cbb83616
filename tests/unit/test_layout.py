"""The package layout holds: no two rooms of the big packages import each other, in any number of steps.

import-linter's contracts (`make lint`) check the layers we chose; this checks the weaker property
every package should have whatever its layers — the graph of its direct sub-packages and modules is
acyclic — so that a newcomer can read any of them bottom-up.
"""

from __future__ import annotations

import grimp
import pytest

PACKAGES = (
    "flotilla.apiserver",
    "flotilla.cli",
    "flotilla.sim",
    "flotilla.controllers",
    "flotilla.scheduler",
)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("flotilla", exclude_type_checking_imports=True)


def rooms(graph: grimp.ImportGraph, package: str) -> dict[str, set[str]]:
    """Each direct child of `package` → the other children it imports (through any of its modules)."""
    depth = package.count(".") + 1

    def room(module: str) -> str:
        return ".".join(module.split(".")[: depth + 1])

    edges: dict[str, set[str]] = {}
    for module in graph.modules:
        if not module.startswith(package + ".") or module.count(".") < depth:
            continue
        source = room(module)
        edges.setdefault(source, set())
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith(package + ".") and room(imported) != source:
                edges[source].add(room(imported))
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    """A check that cannot fail proves nothing: a three-room loop and a two-room loop are found."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert sorted(cycles(edges)) == [["a", "b", "c"], ["d", "e"]]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_two_rooms_of_a_package_import_each_other(graph: grimp.ImportGraph, package: str) -> None:
    """Within each big package, the rooms (direct sub-packages and modules) form no import cycle."""
    found = cycles(rooms(graph, package))
    assert found == [], f"import cycles between the rooms of {package}: {found}"
