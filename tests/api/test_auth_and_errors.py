"""Authentication, rate limits, size limits and the JSON error shape."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cloudsched_web.api.models import ApiToken, token_digest
from tests.api.conftest import Api

pytestmark = pytest.mark.django_db


def _error(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()["error"]
    assert body["code"] == code
    assert body["message"]
    return body


def test_it_stores_only_the_hash_of_a_token(alice):
    row, plaintext = ApiToken.issue(alice, "laptop")
    assert plaintext.startswith("cs_") and len(plaintext) > 40
    assert row.digest == token_digest(plaintext) and plaintext not in (row.digest, row.prefix)
    assert ApiToken.objects.filter(digest=plaintext).count() == 0


def test_it_accepts_a_bearer_token_and_records_its_use(api, alice):
    assert api.get("/scenarios").status_code == 200
    assert ApiToken.objects.get(user=alice).last_used_at is not None


def test_it_rejects_missing_unknown_and_revoked_tokens(client, api, alice):
    body = _error(Api(client).get("/scenarios"), 401, "unauthorized")
    assert "Bearer" in body["message"]
    _error(Api(client, "cs_nope").get("/scenarios"), 401, "invalid_token")
    ApiToken.objects.get(user=alice).revoke()
    response = api.get("/scenarios")
    _error(response, 401, "revoked_token")
    assert response["WWW-Authenticate"] == "Bearer"


def test_a_revoked_token_cannot_fall_back_to_a_session(api, alice):
    api.client.force_login(alice)
    ApiToken.objects.get(user=alice).revoke()
    _error(api.get("/scenarios"), 401, "revoked_token")


def test_session_calls_work_and_unsafe_ones_need_csrf(alice, toy_scenario):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    session = Api(browser)
    assert session.get("/scenarios").status_code == 200
    _error(session.post("/scenarios", toy_scenario), 403, "csrf_failed")
    browser.get("/account/tokens/")  # sets the csrftoken cookie, as any page does
    csrf = browser.cookies["csrftoken"].value
    assert session.post("/scenarios", toy_scenario, headers={"X-CSRFToken": csrf}).status_code == 201


def test_anonymous_posts_get_401_not_a_csrf_error(client, toy_scenario):
    _error(Api(client).post("/scenarios", toy_scenario), 401, "unauthorized")


def test_it_rate_limits_each_token_with_429_and_retry_after(api, bob_api, settings):
    settings.API_RATE_LIMIT = 3
    for _ in range(3):
        assert api.get("/families").status_code == 200
    response = api.get("/families")
    body = _error(response, 429, "rate_limited")
    assert "3 requests per 60 s" in body["message"]
    assert 1 <= int(response["Retry-After"]) <= 61
    assert bob_api.get("/families").status_code == 200  # another token has its own budget


def test_it_answers_413_for_an_oversized_body_before_reading_it(api, settings, toy_scenario):
    settings.API_MAX_BODY_BYTES = 100
    body = _error(api.post("/scenarios", {**toy_scenario, "name": "x" * 200}), 413, "too_large")
    assert body["allowed"] == "≤ 100 bytes"


def test_unknown_paths_and_methods_are_json(api):
    _error(api.get("/nowhere"), 404, "not_found")
    response = api.send("PUT", "/families")
    body = _error(response, 405, "method_not_allowed")
    assert "GET" in body["allowed"]


def test_the_root_lists_the_entry_points(api):
    assert api.get("/").json()["openapi"] == "/api/v1/openapi.json"


def test_an_unexpected_exception_is_a_json_500(api, monkeypatch):
    import schedulers

    def boom():
        raise RuntimeError("kaput")

    monkeypatch.setattr(schedulers, "all_families", boom)
    body = _error(api.get("/families"), 500, "server_error")
    assert "kaput" not in body["message"]


def test_invalid_json_and_non_objects_are_400(api):
    body = _error(api.post("/scenarios", raw="{nope"), 400, "invalid")
    assert body["field"] == "(body)"
    _error(api.post("/scenarios", [1, 2]), 400, "invalid")


def test_bad_query_parameters_name_the_field(api):
    body = _error(api.get("/scenarios", limit=0), 400, "invalid")
    assert body["field"] == "limit"
    assert body["details"][0]["allowed"] == "ge 1"


def test_anything_under_api_answers_json_even_outside_v1(client):
    body = _error(client.get("/api/v2/anything"), 404, "not_found")
    assert "/api/v2/anything" in body["message"]
    assert client.get("/no-such-page/").status_code == 404  # pages keep Django's own 404


def test_the_project_500_handler_is_json_under_api(rf):
    from cloudsched_web.api import errors

    response = errors.handler500(rf.get("/api/v1/runs"))
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert errors.handler500(rf.get("/runs/1/")).status_code == 500


def test_status_polling_does_not_load_the_result_blob(api, scenario):
    from tests.api.factories import finished_run

    run = finished_run(scenario)
    with CaptureQueriesContext(connection) as queries:
        assert api.get(f"/runs/{run.pk}/status").status_code == 200
    assert not any("result_blob" in q["sql"] for q in queries.captured_queries)
