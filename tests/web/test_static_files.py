"""/static/vendor/ serves the npm files the pages load, and nothing else from node_modules."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.management import call_command

pytestmark = pytest.mark.django_db

TEMPLATES = [Path(settings.BASE_DIR, "templates"), *Path(settings.BASE_DIR, "cloudsched_web").glob("*/templates")]
LOADED = re.compile(r"""\{% static ['"]vendor/([^'"]+)['"] %\}""")


def _loaded_by_templates():
    return {m for root in TEMPLATES for f in root.rglob("*.html") for m in LOADED.findall(f.read_text())}


def test_every_vendor_file_a_template_loads_is_listed_and_served(client):
    loaded = _loaded_by_templates()
    assert "chart.js/dist/chart.umd.js" in loaded and "swagger-ui-dist/swagger-ui-bundle.js" in loaded
    assert loaded == set(settings.VENDOR_FILES)
    for name in loaded:
        response = client.get(f"/static/vendor/{name}")
        assert response.status_code == 200, name
        assert finders.find(f"vendor/{name}") == str(Path(settings.VENDOR_DIR, name))


@pytest.mark.parametrize(
    "path",
    [
        "chart.js/package.json",
        "chart.js/dist/chart.js",  # another build of a served package
        "swagger-ui-dist/index.html",
        "swagger-ui-dist/swagger-initializer.js",
        "swagger-ui-dist/swagger-ui-bundle.js.map",  # the bundle names no source map
        "hammerjs/hammer.js",
        "hammerjs/src/hammer.js",
        "@kurkle/color/package.json",  # a dependency no page loads
        ".package-lock.json",
        "chart.js/../../settings.py",
    ],
)
def test_the_rest_of_node_modules_is_not_served(client, path):
    assert Path(settings.VENDOR_DIR, path).exists() or ".." in path
    assert client.get(f"/static/vendor/{path}").status_code == 404
    assert not finders.find(f"vendor/{path}")


def test_the_source_maps_the_served_files_name_are_served(client):
    assert client.get("/static/vendor/chart.js/dist/chart.umd.js.map").status_code == 200
    assert client.get("/static/vendor/swagger-ui-dist/swagger-ui.css.map").status_code == 200


PRODUCTION_STORAGE = "cloudsched_web.staticstorage.ModuleManifestStorage"


def _collect(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": PRODUCTION_STORAGE}}
    call_command("collectstatic", "--noinput", "-v0")


def test_the_production_storage_is_the_module_aware_one():
    from cloudsched_web import settings as production

    assert production.STORAGES["staticfiles"]["BACKEND"] in (
        PRODUCTION_STORAGE,
        "django.contrib.staticfiles.storage.StaticFilesStorage",  # DEBUG
    )


def test_collectstatic_with_the_production_storage_collects_only_those_files(settings, tmp_path):
    _collect(settings, tmp_path)
    collected = {
        p.relative_to(tmp_path / "vendor").as_posix()
        for p in (tmp_path / "vendor").rglob("*")
        if p.is_file() and not p.name.endswith(".gz") and not re.search(r"\.[0-9a-f]{12}\.", p.name)
    }
    assert collected == {
        *settings.VENDOR_FILES,
        "chart.js/dist/chart.umd.js.map",
        "hammerjs/hammer.min.js.map",
        "swagger-ui-dist/swagger-ui.css.map",
    }
    assert (tmp_path / "js" / "pages" / "run.js").exists() and (tmp_path / "api" / "docs.js").exists()


HASHED = re.compile(r"\.[0-9a-f]{12}\.js$")
# `import … from "x";` and `export … from "x";` statements (prettier writes them so), and `import "x";`.
SPECIFIER = re.compile(r"""^(?:import|export)\b(?:[^;"']*?\bfrom)?\s*["']([^"']+)["']\s*;""", re.MULTILINE)


def test_collected_modules_import_each_other_by_hashed_name(settings, tmp_path):
    """A hashed module names its dependencies by their hashed names too, and every one was collected: a page
    never mixes modules of two deployments, and each is served with the long cache lifetime."""
    _collect(settings, tmp_path)
    modules = [p for p in (tmp_path / "js").rglob("*.js") if HASHED.search(p.name)]
    assert len(modules) >= 20
    imports = 0
    for module in modules:
        for name in SPECIFIER.findall(module.read_text()):
            imports += 1
            assert name.startswith(("./", "../")), (module, name)  # no bare specifier: there is no import map
            assert HASHED.search(name), (module, name)
            assert (module.parent / name).is_file(), (module, name)
    assert imports >= 50


JS = Path(settings.BASE_DIR, "static", "js")
SCRIPT = re.compile(r"<script\b([^>]*)>")


def _modules():
    modules = sorted(JS.rglob("*.js"))
    assert len(modules) >= 20
    return modules


def _imports(module: Path) -> list[Path]:
    return [(module.parent / name).resolve() for name in SPECIFIER.findall(module.read_text())]


def test_the_pages_load_their_own_code_as_modules():
    """Every script of static/js a template loads is an ES module that exists; vendor files stay classic."""
    tags = [m for root in TEMPLATES for f in root.rglob("*.html") for m in SCRIPT.findall(f.read_text())]
    own = [t for t in tags if "'js/" in t]
    assert len(own) >= 5
    for tag in own:
        assert 'type="module"' in tag, tag
        assert (JS / re.search(r"'js/([^']+)'", tag).group(1)).is_file(), tag
    assert all('type="module"' not in t for t in tags if "'vendor/" in t)


def test_modules_import_only_files_of_static_js_without_circles():
    graph = {m.resolve(): _imports(m) for m in _modules()}
    assert sum(map(len, graph.values())) >= 50
    for module, deps in graph.items():
        for dep in deps:
            assert dep in graph, (module, dep)  # relative, to an existing module of static/js
    state = {}  # module → "open" while on the path being searched, "done" after

    def visit(module, path):
        state[module] = "open"
        for dep in graph[module]:
            assert state.get(dep) != "open", "import circle: " + " → ".join(
                str(p.relative_to(JS)) for p in [*path, dep]
            )
            if dep not in state:
                visit(dep, [*path, dep])
        state[module] = "done"

    for module in graph:
        if module not in state:
            visit(module, [module])


def test_no_module_shares_state_through_globals():
    """Only a page's entry module sets window.cloudsched (its handle for tests); nothing reads window.cs."""
    modules = list(_modules())
    assert len(modules) > 10
    for module in modules:
        text = module.read_text()
        assert "window.cs" not in text and "csFormat" not in text, module
        if "window.cloudsched" in text:
            assert module.parent.name == "pages", module
