"""The code's shape, read from its syntax (ast): no import circle in either package (imports inside functions
count, ``if TYPE_CHECKING:`` blocks do not), no private name taken across modules, and nothing in
``schedulers.core`` importing from above it. Each finding names the modules, so a failure says what to undo."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schedulers", "cloudsched_web")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The module ``name`` lives in (``a.b.c`` → ``a.b`` when ``c`` is an attribute of module ``a.b``)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _imports(module: str, path: Path) -> list[tuple[str, str | None]]:
    """``(target module, imported name or None)`` for every import in ``module``, inside functions too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((full, None) if full in MODULES else (base, alias.name))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, _ in _imports(module, path):
            owner = _owner(target)
            if owner and owner != module:
                graph[module].add(owner)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_packages_are_found():
    assert "schedulers.registry" in MODULES and "cloudsched_web.runs.tasks" in MODULES
    assert len(MODULES) > 100


def test_no_import_circles():
    cycles = _cycles(_graph())
    assert cycles == [], "import circles: " + "; ".join(" ↔ ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_private_names_across_modules():
    taken = []
    for module, path in MODULES.items():
        for target, name in _imports(module, path):
            owner = _owner(target)
            if owner is None or owner == module:
                continue
            private = name if name is not None else target.rpartition(".")[2]
            if private.startswith("_") and not private.startswith("__"):
                taken.append(f"{module} imports {private} from {owner}")
        taken += [f"{module} reads {alias}.{attr} of {target}" for alias, attr, target in _private_reads(path)]
    assert taken == [], "\n".join(taken)


def _private_reads(path: Path) -> list[tuple[str, str, str]]:
    """``module._name`` where ``module`` is a name this file bound to one of our modules by an import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in MODULES:
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in MODULES:  # ``import a.b`` binds ``a``
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in MODULES:
                    bound[alias.asname or alias.name] = full
    return [(node.value.id, node.attr, bound[node.value.id]) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
            and node.attr.startswith("_") and not node.attr.startswith("__")]  # fmt: skip


def test_the_private_name_check_sees_attribute_reads(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from cloudsched_web.runs import services\n\nservices._hidden()\n")
    assert _private_reads(probe) == [("services", "_hidden", "cloudsched_web.runs.services")]


def test_core_imports_nothing_above_it():
    upward = []
    for module, path in MODULES.items():
        if not module.startswith("schedulers.core"):
            continue
        for target, _ in _imports(module, path):
            if target.split(".")[0] in PACKAGES and not target.startswith("schedulers.core"):
                upward.append(f"{module} imports {target}")
    assert upward == [], "\n".join(upward)


def _nonempty_literal(iterable: ast.expr) -> bool:
    """A loop over a literal with elements (``(0, 1)``, ``range(3)``, ``enumerate([...])``) runs its body."""
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        return bool(iterable.elts)
    if isinstance(iterable, ast.Dict):
        return bool(iterable.keys)
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.args:
        name, args = iterable.func.id, iterable.args
        if name == "range" and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in args):
            return len(range(*[a.value for a in args])) > 0
        if name in ("enumerate", "sorted", "reversed"):
            return _nonempty_literal(args[0])
        if name == "zip":
            return all(_nonempty_literal(a) for a in args)
    return False


def _visit(node: ast.AST, looped: bool, places: list[bool]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(child, ast.Assert):
            places.append(looped)
        if isinstance(child, ast.For):
            _visit(child, looped or not _nonempty_literal(child.iter), places)
        else:
            _visit(child, looped or isinstance(child, ast.While), places)


def _asserts_only_in_loops(tree: ast.AST) -> list[str]:
    """Test functions whose every assert sits in a loop over something that may be empty (they pass vacuously)."""
    found = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or not fn.name.startswith("test"):
            continue
        places: list[bool] = []  # per assert: inside such a loop?
        _visit(fn, False, places)
        if places and all(places):
            found.append(f"{fn.name} (line {fn.lineno})")
    return found


def test_no_test_asserts_only_inside_a_loop_that_may_not_run():
    files = sorted((ROOT / "tests").rglob("test_*.py"))
    assert len(files) > 100
    vacuous = [f"{path.relative_to(ROOT)}: {name}" for path in files
               for name in _asserts_only_in_loops(ast.parse(path.read_text(encoding="utf-8")))]  # fmt: skip
    assert vacuous == [], "assert the collection is not empty before looping over it:\n" + "\n".join(vacuous)


def test_the_vacuous_loop_check_sees_one():
    bad = ast.parse("def test_x(rows):\n    for r in rows:\n        assert r\n")
    good = ast.parse("def test_x(rows):\n    assert rows\n    for r in rows:\n        assert r\n")
    fixed = ast.parse("def test_x():\n    for r in (1, 2):\n        assert r\n")
    assert _asserts_only_in_loops(bad) == ["test_x (line 1)"]
    assert _asserts_only_in_loops(good) == _asserts_only_in_loops(fixed) == []
