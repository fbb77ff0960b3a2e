"""Login throttling counts failures per (client, account) and per client, never per account alone."""

import threading

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory

from cloudsched_web import ratelimit
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
ATTACKER, ALICE_HOME = "203.0.113.66", "198.51.100.7"


@pytest.fixture
def behind_proxy(settings):
    """The deployment of docs/deployment.md: every request arrives from the proxy on loopback."""
    settings.TRUSTED_PROXIES = ["127.0.0.1", "::1"]
    return settings


def _login(client, username, password, via=None, path="/accounts/login/", remote="127.0.0.1"):
    extra = {"HTTP_X_FORWARDED_FOR": via} if via else {}
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=remote, **extra)


def test_failures_from_one_client_behind_the_proxy_do_not_lock_the_user_out_elsewhere(client, alice, behind_proxy):
    for _ in range(5):
        assert _login(client, "alice", "wrong", via=ATTACKER).status_code == 200
    blocked = _login(client, "alice", PASSWORD, via=ATTACKER)
    assert blocked.status_code == 429
    assert 0 < int(blocked["Retry-After"]) <= 900
    assert _login(client, "alice", PASSWORD, via=ALICE_HOME).status_code == 302


def test_a_client_over_its_own_limit_is_blocked_for_every_account_and_others_are_not(client, alice, bob, behind_proxy):
    behind_proxy.LOGIN_FAILURES_PER_IP = 8
    for i in range(8):  # different accounts: no (client, account) counter reaches 5
        assert _login(client, f"user{i}", "wrong", via=ATTACKER).status_code == 200
    assert _login(client, "bob", PASSWORD, via=ATTACKER).status_code == 429
    assert _login(client, "bob", PASSWORD, via=ALICE_HOME).status_code == 302


def test_a_forwarded_header_from_an_untrusted_peer_is_ignored(client, alice):
    """Without a trusted proxy, rotating X-Forwarded-For values buys no fresh counters."""
    for i in range(5):
        _login(client, "alice", "wrong", via=f"192.0.2.{i}", remote=ATTACKER)
    assert _login(client, "alice", PASSWORD, via="192.0.2.99", remote=ATTACKER).status_code == 429


def test_addresses_the_client_wrote_left_of_the_proxy_are_ignored(client, alice, behind_proxy):
    for i in range(5):  # the proxy appends the real peer; the attacker varies what it sent itself
        _login(client, "alice", "wrong", via=f"192.0.2.{i}, {ATTACKER}")
    assert _login(client, "alice", PASSWORD, via=f"192.0.2.99, {ATTACKER}").status_code == 429


def test_the_admin_login_is_throttled_too(client, alice):
    for _ in range(5):
        assert _login(client, "alice", "wrong", path="/admin/login/").status_code == 200
    assert _login(client, "alice", PASSWORD, path="/admin/login/").status_code == 429
    assert _login(client, "alice", PASSWORD).status_code == 429  # the same counter as the site's form


def test_a_success_forgives_the_accounts_failures_but_not_the_clients(client, alice, settings):
    settings.LOGIN_FAILURES_PER_IP = 7
    for _ in range(4):
        _login(client, "alice", "wrong")
    assert _login(client, "alice", PASSWORD).status_code == 302
    for _ in range(3):  # alice's counter restarted: 4 more would be allowed, but the client has 7
        assert _login(client, "alice", "wrong").status_code == 200
    assert _login(client, "alice", PASSWORD).status_code == 429


@pytest.mark.parametrize(
    ("remote", "header", "trusted", "expected"),
    [
        ("127.0.0.1", "203.0.113.5", [], "127.0.0.1"),
        ("127.0.0.1", "203.0.113.5", ["127.0.0.1"], "203.0.113.5"),
        ("127.0.0.1", "6.6.6.6, 203.0.113.5, 10.0.0.2", ["127.0.0.1", "10.0.0.0/8"], "203.0.113.5"),
        ("127.0.0.1", "10.0.0.3, 10.0.0.2", ["127.0.0.1", "10.0.0.0/8"], "10.0.0.3"),
        ("127.0.0.1", "garbage, 203.0.113.5:5123", ["127.0.0.1"], "203.0.113.5"),
        ("127.0.0.1", "203.0.113.5, garbage", ["127.0.0.1"], "127.0.0.1"),
        ("::1", "[2001:db8::7]:443", ["::1"], "2001:db8::7"),
        ("::ffff:203.0.113.5", "", ["127.0.0.1"], "203.0.113.5"),
    ],
)
def test_the_client_is_the_rightmost_address_not_a_trusted_proxy(settings, remote, header, trusted, expected):
    settings.TRUSTED_PROXIES = trusted
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=header)
    assert ratelimit.client_address(request) == expected


def test_the_client_header_is_configurable(settings):
    settings.TRUSTED_PROXIES, settings.CLIENT_IP_HEADER = ["127.0.0.1"], "X-Real-IP"
    request = RequestFactory().get("/", HTTP_X_FORWARDED_FOR="6.6.6.6", HTTP_X_REAL_IP="203.0.113.5")
    assert ratelimit.client_address(request) == "203.0.113.5"


def test_an_ipv6_client_counts_as_its_slash_64():
    one = RequestFactory().get("/", REMOTE_ADDR="2001:db8:1:2::a")
    other = RequestFactory().get("/", REMOTE_ADDR="2001:db8:1:2:ffff::b")
    assert ratelimit.client_id(one) == ratelimit.client_id(other) == "2001:db8:1:2::/64"


def test_a_bad_trusted_proxies_value_names_the_variable_and_the_format(monkeypatch):
    from cloudsched_web import settings as project_settings

    monkeypatch.setenv("TRUSTED_PROXIES", "127.0.0.1, 10.0.0.300")
    with pytest.raises(ImproperlyConfigured, match=r"TRUSTED_PROXIES: '10.0.0.300'.*CIDR"):
        project_settings._trusted_proxies()
    monkeypatch.delenv("TRUSTED_PROXIES")
    monkeypatch.setenv("BEHIND_PROXY", "1")
    assert project_settings._trusted_proxies() == ["127.0.0.1", "::1"]


@pytest.mark.django_db(transaction=True)
def test_parallel_attempts_on_the_database_cache_take_at_most_the_limit(settings):
    """Slots are claimed with add(): 12 simultaneous attempts against a limit of 5 let exactly 5 through."""
    from django.core.cache import caches
    from django.core.management import call_command

    settings.CACHES = {**settings.CACHES, "throttle": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "test_throttle"}}  # fmt: skip
    call_command("createcachetable", "--database", "default")
    caches["throttle"].clear()
    barrier, results = threading.Barrier(12), []

    def attempt():
        from django.db import connection

        barrier.wait()
        results.append(ratelimit.take_slot("login-fail:test", 5, 60))
        connection.close()

    threads = [threading.Thread(target=attempt) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(slot is not None for slot, _ in results) == 5
    assert all(0 < retry <= 60 for slot, retry in results if slot is None), results


def test_csrf_rejected_log_ins_do_not_count(alice):
    """A form on another site makes browsers POST without a token: 403s, and alice can still log in."""
    from django.test import Client

    forged = Client(enforce_csrf_checks=True)
    for _ in range(30):  # the per-client limit too
        assert _login(forged, "alice", "wrong", remote=ATTACKER).status_code == 403
    honest = Client(enforce_csrf_checks=True)
    honest.get("/accounts/login/", REMOTE_ADDR=ATTACKER)
    token = honest.cookies["csrftoken"].value
    response = honest.post("/accounts/login/", {"username": "alice", "password": PASSWORD,
                           "csrfmiddlewaretoken": token}, REMOTE_ADDR=ATTACKER)  # fmt: skip
    assert response.status_code == 302


def test_an_attempt_with_a_blank_password_never_reached_authentication_and_does_not_count(client, alice):
    for _ in range(10):
        assert _login(client, "alice", "", remote=ATTACKER).status_code == 200
    assert _login(client, "alice", PASSWORD, remote=ATTACKER).status_code == 302


def test_checked_and_refused_passwords_count_up_to_the_limit(client, alice, settings):
    """The limit exactly: 5 refused passwords are let through, the 6th attempt is blocked."""
    settings.LOGIN_FAILURES_PER_USER = 5
    for _ in range(5):
        assert _login(client, "alice", "wrong", remote=ATTACKER).status_code == 200
    assert _login(client, "alice", PASSWORD, remote=ATTACKER).status_code == 429


def test_the_login_view_counts_an_ipv6_client_as_its_slash_64(client, alice):
    """Five addresses of one /64 share one counter; the next /64 has its own."""
    for i in range(1, 6):
        assert _login(client, "alice", "wrong", remote=f"2001:db8:1:2::{i:x}").status_code == 200
    assert _login(client, "alice", PASSWORD, remote="2001:db8:1:2:ffff::9").status_code == 429
    assert _login(client, "alice", PASSWORD, remote="2001:db8:1:3::1").status_code == 302
