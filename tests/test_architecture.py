"""The rules of docs/ARCHITECTURE.md, checked on the source tree.

- no module over 500 lines (migrations aside) and no function over 60 lines,
  benchmark scripts aside;
- no import cycle between modules (imports inside functions count: a lazy
  import hides a cycle, it does not remove it);
- the packages form layers, each importing only those below it (``LAYERS``);
  ``bench`` and ``devtools`` sit on top and are checked too;
- nothing below ``pages`` touches the page cache;
- template tags import no views module.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
# Bottom to top. A package may import itself, `config` and the packages it names here,
# nothing else of ours. `config` is the project's wiring: its settings, cache and Celery
# set-up serve every layer, and its URL conf and views name the pages, so it may import any.
LAYERS = {
    "identity": set(),
    "catalogue": {"identity"},
    "exports": {"catalogue"},
    "search": {"catalogue"},
    "similarity": {"catalogue"},
    "ingestion": {"catalogue", "identity", "similarity"},
    "graph": {"catalogue", "search"},
    "profiles": {"catalogue", "ingestion", "graph"},
    "trust": {"catalogue", "graph", "profiles"},
}
# The top of the stack, in order: each may import every package below it.
for _top in ("curation", "pages", "devtools", "bench"):
    LAYERS[_top] = set(LAYERS)
MAY_IMPORT = {app: below | {app, "config"} for app, below in LAYERS.items()}
APPS = (*LAYERS, "config")
PAGE_CACHE = "pages.cache"


def _modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            yield path


def _name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path):
    """Modules of ours that `path` imports, wherever the import statement is."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: only modules of the source tree have a package
                base = _package(path).split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in APPS}


def _package(path) -> str:
    name = _name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _graph():
    names = {_name(path): path for path in _modules()}
    edges = {}
    for name, path in names.items():
        targets = set()
        for imported in _imports(path):
            # `from a.b import c` names either module a.b.c or a member of a.b.
            while imported and imported not in names:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        edges[name] = targets
    return edges


def _cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
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


def _sized_modules():
    """Modules the size rules apply to: benchmarks are scripts, read top to bottom."""
    return (path for path in _modules() if path.relative_to(ROOT).parts[0] != "bench")


def big_modules():
    return {
        str(path.relative_to(ROOT)): lines
        for path in _sized_modules()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }


def long_functions():
    found = {}
    for path in _sized_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    return found


def import_cycles():
    return _cycles(_graph())


def upward_imports():
    found = []
    for name, targets in _graph().items():
        app = name.split(".")[0]
        allowed = MAY_IMPORT.get(app)
        if allowed is None:
            continue
        found.extend(f"{name} -> {t}" for t in sorted(targets) if t.split(".")[0] not in allowed)
    return found


def page_cache_users():
    """Modules outside `pages` (and the project's wiring) that import the page cache."""
    return sorted(
        name
        for name, targets in _graph().items()
        if PAGE_CACHE in targets and name.split(".")[0] not in {"pages", "config"}
    )


def tags_importing_views():
    found = []
    for name, targets in _graph().items():
        if ".templatetags." in name:
            found.extend(
                f"{name} -> {t}" for t in sorted(targets) if t.rpartition(".")[2].endswith("views")
            )
    return found


def test_no_app_module_is_over_500_lines():
    assert big_modules() == {}


def test_no_function_is_over_60_lines():
    assert long_functions() == {}


def test_no_import_cycle_between_modules():
    assert import_cycles() == []


def test_apps_import_only_the_apps_below_them():
    assert upward_imports() == []


def test_nothing_below_the_pages_touches_the_page_cache():
    assert page_cache_users() == []


def test_template_tags_import_no_views():
    assert tags_importing_views() == []


def test_the_checker_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import catalogue.models\n", {"catalogue.models"}),
        ("from catalogue import text\n", {"catalogue", "catalogue.text"}),
        ("def f():\n    from graph.svg import draw\n", {"graph.svg", "graph.svg.draw"}),
    ],
)
def test_the_checker_sees_every_import(tmp_path, source, expected):
    path = tmp_path / "module.py"
    path.write_text(source)
    assert _imports(path) == expected


if __name__ == "__main__":
    print("modules over 500 lines:", big_modules())
    print("functions over 60 lines:", long_functions())
    print("import cycles:", import_cycles())
    print("upward imports:", upward_imports())
    print("template tags importing views:", tags_importing_views())
