"""Serve exactly the npm files the pages load, as ``static/vendor/<package>/<file>``.

``node_modules`` holds whole packages (sources, package.json, tests, other builds); mapping the
directory into static files would publish all of it. ``settings.VENDOR_FILES`` names the files the
templates load; this finder adds the source map each of them names (``sourceMappingURL``, which
the manifest storage of collectstatic resolves) and nothing else. collectstatic, WhiteNoise's
finder mode and the test server all go through it.
"""

import re
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import Warning
from django.core.files.storage import FileSystemStorage

PREFIX = "vendor"
_SOURCE_MAP = re.compile(rb"[#@] sourceMappingURL=([\w./-]+)")


def vendor_files(root: Path, names) -> list[str]:
    """``names`` plus the source maps they name (``//# sourceMappingURL=x.map`` in the last KB)."""
    out = []
    for name in names:
        out.append(name)
        try:
            with open(root / name, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 1024))
                tail = f.read()
        except OSError:
            continue
        for ref in _SOURCE_MAP.findall(tail):
            mapped = (Path(name).parent / ref.decode()).as_posix()
            if not ref.startswith(b"data:") and (root / mapped).is_file() and mapped not in out:
                out.append(mapped)
    return out


class VendorFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        self.root = Path(settings.VENDOR_DIR)
        self.storage = FileSystemStorage(location=str(self.root))
        self.storage.prefix = PREFIX
        self.files = vendor_files(self.root, settings.VENDOR_FILES)

    def check(self, **kwargs):
        missing = [name for name in settings.VENDOR_FILES if not (self.root / name).is_file()]
        if missing:
            return [
                Warning(
                    f"front-end files missing from {self.root}: {', '.join(missing)}",
                    hint="run `npm ci --ignore-scripts` (run.sh does), or fix settings.VENDOR_FILES",
                    id="cloudsched.W001",
                )
            ]
        return []

    def find(self, path, find_all=False, **kwargs):
        if kwargs:
            find_all = self._check_deprecated_find_param(find_all=find_all, **kwargs)
        rel = path[len(PREFIX) + 1 :] if path.startswith(PREFIX + "/") else None
        if rel not in self.files or not (self.root / rel).is_file():
            return []  # what Django's finders answer for "not here"
        found = str(self.root / rel)
        return [found] if find_all else found

    def list(self, ignore_patterns):
        for rel in self.files:
            if (self.root / rel).is_file():
                yield rel, self.storage
