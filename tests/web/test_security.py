import pytest
from django.test import Client

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _login(client, password):
    return client.post("/accounts/login/", {"username": "alice", "password": password})


def test_login_is_blocked_after_repeated_failures_even_with_the_right_password(client, alice):
    for _ in range(5):
        assert _login(client, "wrong").status_code == 200
    blocked = _login(client, PASSWORD)
    assert blocked.status_code == 429
    assert "Too many failed log-in attempts" in blocked.content.decode()
    assert int(blocked["Retry-After"]) > 0


def test_a_successful_login_before_the_limit_works(client, alice):
    _login(client, "wrong")
    assert _login(client, PASSWORD).status_code == 302


def test_forms_require_csrf(alice, scenario):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(f"/scenarios/{scenario.pk}/run/")
    assert response.status_code == 403
    assert "expired" in response.content.decode()


def test_unknown_pages_get_the_friendly_404(alice_client):
    response = alice_client.get("/no/such/page/")
    assert response.status_code == 404
    assert "nothing here" in response.content.decode()


def test_security_headers_are_sent(alice_client):
    response = alice_client.get("/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
