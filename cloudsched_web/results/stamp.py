"""The reproducibility stamp of a result page: seed, digests, the app's commit, the versions of what computed it,
plug-ins, workers and each algorithm's wall time (shared pages leave the server's details out)."""

from functools import cache
from importlib import metadata

from django.conf import settings

__all__ = ["SCIENCE_PACKAGES", "WEB_PACKAGES", "git_commit", "stamp", "versions"]


SCIENCE_PACKAGES = ("numpy", "scipy", "pydantic")
WEB_PACKAGES = ("django", "celery")


@cache
def _versions(names):
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def versions(public=False):
    """Installed versions for the stamp; ``public`` (a share link) names the scientific stack only."""
    import platform

    out = _versions(SCIENCE_PACKAGES) if public else _versions(SCIENCE_PACKAGES + WEB_PACKAGES)
    return {**out, "python": platform.python_version()}


@cache
def git_commit():
    """The application's commit: GIT_COMMIT from the environment, else read from .git (no subprocess)."""
    import os

    if os.environ.get("GIT_COMMIT"):
        return os.environ["GIT_COMMIT"][:40]
    git = settings.BASE_DIR / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if head.startswith("ref: "):
            ref = head[5:]
            path = git / ref
            if path.exists():
                return path.read_text().strip()
            for line in (git / "packed-refs").read_text().splitlines():
                if line.endswith(" " + ref):
                    return line.split()[0]
            return ""
        return head
    except OSError:
        return ""


def _algorithm_times(result):
    """``{algorithm: {"total": s, "n": repetitions}}``: each algorithm's own wall time, summed over every one of
    its repetitions (runs that recorded none are left out of the sum and of ``n``)."""
    out = {}
    for r in (result or {}).get("runs", []):
        t = r.get("wall_time_s")
        if isinstance(t, (int, float)):
            entry = out.setdefault(str(r.get("algorithm", "")), {"total": 0.0, "n": 0})
            entry["total"] += float(t)
            entry["n"] += 1
    return out


def stamp(run, result, public=False):
    """The reproducibility stamp: what it takes to rerun this result bit for bit.

    ``public`` (a share link, seen by anyone holding it): the science only, never what describes the
    server: no worker host name, no web-stack versions.
    """
    out = {
        "seed": result.get("seed") if result else run.config.get("seed"),
        "digest": result.get("scenario_digest", "") if result else "",
        "commit": git_commit(),
        "versions": versions(public),
        "wall_time_s": run.wall_time_s,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "attempts": run.attempts,
        "algorithm_times": _algorithm_times(result),
    }
    plugins = (result or {}).get("plugins") or {}
    if plugins:  # which installed plug-in ran each plug-in algorithm (kept in the result: readable once it is removed)
        keep = ("name", "package", "version", "sha256") if public else ("name", "package", "version", "sha256", "file")
        out["plugins"] = {alg: {k: p.get(k, "") for k in keep} for alg, p in plugins.items()}
    if not public:
        out["worker"] = run.worker or ""
    return out
