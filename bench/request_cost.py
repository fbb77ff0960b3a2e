"""Benchmark: what a small hostile request costs the web process.

Targets: the 9.8 KB sweep of 1,000 × 1,000 points is refused in ≤ 50 ms with the web process's peak
RSS growing ≤ 100 MB; a sweep at the 200-point limit is accepted (its cost printed for comparison).

    .venv/bin/python bench/request_cost.py

It runs Django's test client against the real API view in this process, with a throwaway SQLite
database and MEDIA_ROOT in a temporary directory; the runs of the accepted sweep stay queued
(no broker is needed: they are sent when the transaction commits, and a refused send leaves them queued).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.results_scale import peak_mb, status_mb  # noqa: E402
from bench.web_pages import setup_lab  # noqa: E402

TARGET_MS = 50.0
TARGET_MB = 100.0


def _post(client, token, path, body):
    t0, peak0, rss0 = time.perf_counter(), peak_mb(), status_mb()
    response = client.post(f"/api/v1{path}", json.dumps(body), content_type="application/json",
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    ms = (time.perf_counter() - t0) * 1000
    return response, ms, max(peak_mb() - peak0, 0.0), status_mb() - rss0


def main():
    with tempfile.TemporaryDirectory() as tmp:
        setup_lab(tmp)
        import os

        os.environ["CELERY_BROKER_URL"] = "redis://127.0.0.1:1/0"  # nothing listens: runs stay queued
        from django.contrib.auth import get_user_model
        from django.test import Client

        import schedulers
        from cloudsched_web.api.models import ApiToken
        from cloudsched_web.scenarios.models import Scenario

        user = get_user_model().objects.create_user("bench", "", "bench-pass-123")
        _, token = ApiToken.issue(user, "bench")
        config = schedulers.example("backfill")
        scenario = Scenario.objects.create(owner=user, family="backfill", name="bench", config=config)
        import logging

        from django.core.management import call_command

        call_command("createcachetable", verbosity=0)
        logging.disable(logging.ERROR)  # the refused broker connection's traceback is expected here
        client = Client()
        client.get("/api/v1/families", headers={"Authorization": f"Bearer {token}"})  # warm: imports, URLconf
        probe = {"axes": {"seed": list(range(1000)), "workload.n_jobs": list(range(1, 1001))}}
        print(f"probe body: {len(json.dumps(probe)) / 1000:.1f} KB")
        rows = []
        for label, body in [
            ("sweep 1,000 × 1,000 (refused, cold)", probe),
            ("sweep 1,000 × 1,000 (refused)", probe),
            ("sweep 10 × 20 at the limit (accepted)", {"axes": {"seed": list(range(10)), "workload.n_jobs": list(range(100, 120))}}),
        ]:  # fmt: skip
            response, ms, peak, kept = _post(client, token, f"/scenarios/{scenario.pk}/studies", body)
            rows.append((label, response.status_code, ms, peak, kept))
        print(f"{'request':40s} {'status':>6s} {'ms':>8s} {'peak +MB':>9s} {'kept +MB':>9s}")
        for label, status, ms, peak, kept in rows:
            print(f"{label:40s} {status:6d} {ms:8.1f} {peak:9.1f} {kept:9.1f}")
        _, status, ms, peak, _ = rows[1]
        ok = status == 400 and ms <= TARGET_MS and peak <= TARGET_MB
        print(
            f"target: refused in ≤ {TARGET_MS:.0f} ms, peak growth ≤ {TARGET_MB:.0f} MB: {'met' if ok else 'NOT met'}"
        )


if __name__ == "__main__":
    main()
