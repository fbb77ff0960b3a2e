import json

import pytest
from django.test import Client

from cloudsched_web.api.models import ApiToken
from cloudsched_web.results import queries
from cloudsched_web.scenarios.models import Scenario


@pytest.fixture(autouse=True)
def _eager_celery():
    # Submissions run the real task in-process right after commit (as in tests/web).
    from cloudsched_web.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # alice and bob are created with a password: PBKDF2 costs ~1 s per user on a loaded machine.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_caches(request):
    queries.clear_cache()
    if request.node.get_closest_marker("django_db") or {"db", "transactional_db"} & set(request.fixturenames):
        from django.core.cache import cache

        cache.clear()  # rate-limit counters (the default cache may live in the database)


@pytest.fixture
def scenario(alice, toy_scenario):
    return Scenario.objects.create(owner=alice, family="toy", name=toy_scenario["name"], config=toy_scenario)


class Api:
    """The Django test client speaking JSON to /api/v1/ with a bearer token (or the session when None)."""

    def __init__(self, client, token=None):
        self.client, self.token = client, token

    def _headers(self, headers):
        base = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**base, **(headers or {})}

    def get(self, path, headers=None, **params):
        return self.client.get(f"/api/v1{path}", params, headers=self._headers(headers))

    def send(self, method, path, body=None, headers=None, raw=None):
        data = raw if raw is not None else (json.dumps(body) if body is not None else "")
        return self.client.generic(
            method, f"/api/v1{path}", data, content_type="application/json", headers=self._headers(headers)
        )

    def post(self, path, body=None, **kw):
        return self.send("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.send("PUT", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.send("PATCH", path, body, **kw)

    def delete(self, path, **kw):
        return self.send("DELETE", path, **kw)


@pytest.fixture
def alice_token(alice):
    return ApiToken.issue(alice, "tests")[1]


@pytest.fixture
def bob_token(bob):
    return ApiToken.issue(bob, "tests")[1]


@pytest.fixture
def api(client, alice_token):
    return Api(client, alice_token)


@pytest.fixture
def bob_api(bob_token):
    return Api(Client(), bob_token)


@pytest.fixture
def run_now(django_capture_on_commit_callbacks):
    """Run the Celery tasks a request queues (eagerly, right after its transaction commits)."""

    def call(fn, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return fn(*args, **kwargs)

    return call
