"""The log-in throttle on the real stack: gunicorn 2 × 4 threads behind a (simulated) proxy, database cache on SQLite."""

from collections import Counter
from functools import partial

import pytest

from bench.web_concurrency import PASSWORD, Client, Site, fire, prepare, site_env

pytestmark = pytest.mark.slow
ATTACKER, ALICE_HOME = "203.0.113.66", "198.51.100.7"


def test_parallel_guesses_are_capped_across_processes_and_alice_still_logs_in_elsewhere(tmp_path):
    env = site_env(tmp_path, "redis://127.0.0.1:9/0") | {"TRUSTED_PROXIES": "127.0.0.1"}  # no run is sent
    prepare(env)
    site = Site(tmp_path, env)
    try:
        attacker = Client(site.port)
        guess = partial(
            attacker.post_form, "/accounts/login/", {"username": "alice", "password": "wrong"},
            token=attacker.csrf_token("/accounts/login/"), headers={"X-Forwarded-For": ATTACKER},
        )  # fmt: skip
        results = fire([("guess", guess, {200, 429})] * 12)  # released at once, over both web processes
        assert Counter(r["status"] for r in results) == {200: 5, 429: 7}  # exactly LOGIN_FAILURES_PER_USER tried
        right = partial(attacker.post_form, "/accounts/login/", {"username": "alice", "password": PASSWORD})
        assert right(headers={"X-Forwarded-For": ATTACKER})[0] == 429
        alice = Client(site.port).login("alice", headers={"X-Forwarded-For": f"10.9.9.9, {ALICE_HOME}"})
        assert alice.request("GET", "/")[0] == 200
    finally:
        site.stop()
    assert "Traceback" not in site.log()
