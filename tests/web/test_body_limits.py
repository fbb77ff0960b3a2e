"""Request bodies are bounded before anything reads them; files stream to disk (cloudsched_web/bodylimit.py)."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
LIMIT = 4096  # DATA_UPLOAD_MAX_MEMORY_SIZE for these tests: the rule, not the default, is under test


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 20
    return settings


def _urlencoded(size):
    prefix = b"username=alice&password="
    return prefix + b"%2C" * ((size - len(prefix)) // 3) + b"x" * ((size - len(prefix)) % 3)


def test_the_default_limit_is_djangos_two_and_a_half_mib():
    from cloudsched_web import settings as production

    assert production.DATA_UPLOAD_MAX_MEMORY_SIZE == 2_621_440
    assert production.FILE_UPLOAD_MAX_MEMORY_SIZE == 2_621_440


def test_an_anonymous_body_one_byte_over_the_limit_is_refused_before_it_is_read(alice):
    client = Client(enforce_csrf_checks=True)
    over = client.generic("POST", "/accounts/login/", _urlencoded(LIMIT + 1),
                          content_type="application/x-www-form-urlencoded", REMOTE_ADDR="203.0.113.5")  # fmt: skip
    assert over.status_code == 413
    text = over.content.decode()
    assert f"{LIMIT + 1:,} bytes" in text and f"at most {LIMIT:,} bytes" in text
    assert "DATA_UPLOAD_MAX_MEMORY_SIZE" in text
    at = client.generic("POST", "/accounts/login/", _urlencoded(LIMIT),
                        content_type="application/x-www-form-urlencoded", REMOTE_ADDR="203.0.113.5")  # fmt: skip
    assert at.status_code == 403  # read, then the CSRF check's answer


def test_a_refused_body_takes_no_throttle_slot(alice):
    client = Client()
    for _ in range(10):
        response = client.generic("POST", "/accounts/login/", _urlencoded(LIMIT + 1),
                                  content_type="application/x-www-form-urlencoded", REMOTE_ADDR="203.0.113.6")  # fmt: skip
        assert response.status_code == 413
    assert (
        client.post("/accounts/login/", {"username": "alice", "password": "x"}, REMOTE_ADDR="203.0.113.6").status_code
        == 200
    )


def test_a_json_body_to_a_page_is_bounded_too(client, alice):
    client.force_login(alice)
    response = client.generic("POST", "/scenarios/new/", b"{" + b" " * LIMIT + b"}", content_type="application/json")
    assert response.status_code == 413


def test_too_many_form_fields_name_the_limit(client):
    fields = "&".join(f"f{i}=1" for i in range(21))
    response = client.generic("POST", "/accounts/login/", fields, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert "at most 20 fields (DATA_UPLOAD_MAX_NUMBER_FIELDS)" in response.content.decode()
    ok = "&".join(f"f{i}=1" for i in range(20))
    assert (
        client.generic("POST", "/accounts/login/", ok, content_type="application/x-www-form-urlencoded").status_code
        == 200
    )


def test_a_multipart_text_field_over_the_limit_is_refused_and_a_file_of_any_size_is_not(client, alice, tmp_path):
    client.force_login(alice)
    name = "name"
    # Django counts a text field as its name, its value and two bytes.
    fit = client.post("/traces/", {name: "x" * (LIMIT - len(name) - 2)})
    assert fit.status_code == 200
    over = client.post("/traces/", {name: "x" * (LIMIT - len(name) - 1)})
    assert over.status_code == 413
    assert "text fields" in over.content.decode() and "send a trace as a file" in over.content.decode()
    big = tmp_path / "big.swf"
    big.write_text("".join(f"{i + 1} {i} 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 -1 -1 -1\n" for i in range(2000)))
    assert big.stat().st_size > 10 * LIMIT
    with big.open("rb") as f:
        stored = client.post("/traces/", {"file": f, "name": "big"})
    assert stored.status_code == 302


def test_a_multipart_body_over_the_trace_limit_is_refused_from_its_length(client, alice, settings):
    from cloudsched_web.bodylimit import MULTIPART_ENVELOPE_BYTES

    settings.TRACE_UPLOAD_MAX_BYTES = 1000
    client.force_login(alice)
    over = 1000 + MULTIPART_ENVELOPE_BYTES + 1
    response = client.generic("POST", "/traces/", b"x" * over, content_type="multipart/form-data; boundary=zz")
    assert response.status_code == 413
    assert "TRACE_UPLOAD_MAX_BYTES" in response.content.decode()
