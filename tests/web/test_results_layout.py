"""The result engine's shape (docs/architecture.md, "The result engine"): a small public interface, no private
names across its modules, no import circles, no module over 400 lines, and it never imports ``runs`` back.

Read from the source with ``ast`` (imports inside functions count too), so nothing has to be imported."""

import ast
from pathlib import Path

import cloudsched_web.results

PACKAGE = "cloudsched_web.results"
ROOT = Path(cloudsched_web.results.__file__).parent
MAX_LINES = 400
# What the result engine may read of runs/: the models (a Run row's fields) and the number rules of the pages.
RUNS_ALLOWED = {"cloudsched_web.runs.models", "cloudsched_web.results.formatting"}


def _modules():
    return {p.stem: ast.parse(p.read_text(), str(p)) for p in sorted(ROOT.glob("*.py")) if p.stem != "__init__"}


def _exported(tree):
    """The names in the module's ``__all__`` (None when it has none)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {ast.literal_eval(e) for e in node.value.elts}
    return None


def _defined(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _uses(name, tree):
    """``(module it imports from the package, name used or None, line)`` for every import of a package module
    in ``tree`` and every ``module.name`` read through one; ``("runs:" + module, None, line)`` for an import
    of something outside the package that starts with ``cloudsched_web.runs``."""
    out, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x / from .x import y
                base = PACKAGE + ("." + base if base else "")
            for alias in node.names:
                if base == PACKAGE:
                    out.append((alias.name, None, node.lineno))
                    bound[alias.asname or alias.name] = alias.name
                elif base.startswith(PACKAGE + "."):
                    out.append((base.split(".")[2], alias.name, node.lineno))
                elif base.startswith("cloudsched_web.runs"):
                    full = base if base != "cloudsched_web.runs" else f"{base}.{alias.name}"
                    out.append(("runs:" + full, None, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    out.append((alias.name.split(".")[2], None, node.lineno))
                elif alias.name.startswith("cloudsched_web.runs"):
                    out.append(("runs:" + alias.name, None, node.lineno))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            out.append((bound[node.value.id], node.attr, node.lineno))
    return out


def _private_attributes(tree):
    """``obj._name`` read on anything but ``self`` or ``cls``: another module's private (``stored._source``)."""
    return [
        (node.attr, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]


def _problems(modules):
    problems = []
    graph = {m: set() for m in modules}
    for name, tree in modules.items():
        exported = _exported(tree)
        if exported is None:
            problems.append(f"{name}: no __all__")
        elif missing := exported - _defined(tree):
            problems.append(f"{name}: __all__ names what it does not define: {sorted(missing)}")
        for other, used, line in _uses(name, tree):
            if other.startswith("runs:"):
                if other[5:] not in RUNS_ALLOWED:
                    problems.append(f"{name}:{line}: imports {other[5:]} (runs -> results, never back)")
                continue
            if other not in modules:
                problems.append(f"{name}:{line}: imports {PACKAGE}.{other}, not a module of the package")
                continue
            if other != name:
                graph[name].add(other)
            if used is None:
                continue
            if used.startswith("_"):
                problems.append(f"{name}:{line}: uses the private {other}.{used}")
            elif used not in (_exported(modules[other]) or set()):
                problems.append(f"{name}:{line}: uses {other}.{used}, which is not in {other}.__all__")
        for attr, line in _private_attributes(tree):
            problems.append(f"{name}:{line}: reads the private attribute .{attr} of another object")
    problems += [f"import circle: {' -> '.join(cycle)}" for cycle in _cycles(graph)]
    return problems


def _cycles(graph):
    """One circle through each node that is on one (depth-first search, nodes in name order)."""
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_private_names_across_modules_no_circles_and_only_models_and_formatting_of_runs():
    assert _problems(_modules()) == []


def test_no_module_is_over_400_lines():
    long = {p.name: n for p in ROOT.glob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_checks_catch_what_they_are_for():
    # A private import, a name left out of __all__, a private attribute, a circle and an import of runs' tasks.
    modules = {
        "a": ast.parse('__all__ = ["f"]\nfrom cloudsched_web.results.b import _g, h\ndef f(x):\n    return x._memo\n'),
        "b": ast.parse('__all__ = ["_g"]\nfrom cloudsched_web.results import a\nfrom cloudsched_web.runs import tasks\n'
                       "def _g():\n    return a.f\ndef h():\n    pass\n"),
    }  # fmt: skip
    problems = _problems(modules)
    assert "a:2: uses the private b._g" in problems
    assert "a:2: uses b.h, which is not in b.__all__" in problems
    assert "a:4: reads the private attribute ._memo of another object" in problems
    assert "b:3: imports cloudsched_web.runs.tasks (runs -> results, never back)" in problems
    assert "import circle: a -> b -> a" in problems
