"""The floors of the house: imports point down only, and no two files import each other."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

ROOT = Path(__file__).resolve().parents[1]

# Folder of the repository → its import name, and the floor it stands on.
PACKAGES = {
    "assembly_gym/core": ("assembly_gym.core", 0),
    "envs": ("assembly_gym.envs", 1),
    "world_models": ("assembly_gym.world_models", 2),
    "irl": ("assembly_gym.irl", 2),
    "agents": ("assembly_gym.agents", 3),
    "benchmarks": ("assembly_gym.benchmarks", 4),
}


def _modules() -> dict[str, Path]:
    """Every module of the five packages and the ground floor, by import name."""
    modules = {}
    for folder, (name, _) in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((name, *parts))] = path
    return modules


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """The assembly_gym modules a file imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from package import submodule` imports the submodule too
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in MODULES}
    return found


GRAPH = {module: _imports(path) for module, path in MODULES.items()}


def _floor(module: str) -> tuple[str, int]:
    return max(
        (spec for spec in PACKAGES.values() if module.startswith(spec[0])),
        key=lambda spec: len(spec[0]),
    )


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_nothing_from_a_floor_above_or_beside_it(module: str) -> None:
    package, floor = _floor(module)
    wrong = sorted(
        imported
        for imported in GRAPH[module]
        if _floor(imported)[1] > floor
        or (_floor(imported)[1] == floor and _floor(imported)[0] != package)
    )
    assert not wrong, f"{module} (floor {floor}) imports {wrong}"


def test_no_import_cycles_between_files() -> None:
    names = sorted(MODULES)
    index = {name: i for i, name in enumerate(names)}
    rows, cols = zip(
        *((index[a], index[b]) for a in names for b in GRAPH[a] if b != a), strict=True
    )
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(names), len(names)))
    _, labels = connected_components(graph, directed=True, connection="strong")
    cycles = [
        sorted(names[i] for i in np.flatnonzero(labels == label))
        for label in np.unique(labels)
        if np.sum(labels == label) > 1
    ]
    assert not cycles, f"import cycles: {cycles}"


def test_every_package_sets_its_public_surface() -> None:
    for path in MODULES.values():
        if path.name == "__init__.py":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            assigned = {
                target.id
                for node in tree.body
                if isinstance(node, ast.Assign)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            assert "__all__" in assigned, f"{path.relative_to(ROOT)} sets no __all__"
