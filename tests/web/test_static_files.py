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


def test_collectstatic_with_the_production_storage_collects_only_those_files(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", "--noinput", "-v0")
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
    assert (tmp_path / "js" / "run.js").exists() and (tmp_path / "api" / "docs.js").exists()
