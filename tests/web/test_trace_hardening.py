"""Traces: uploads and imports stream in constant memory through the
library's bounded reader, import_trace opens only regular files and never prints a non-SWF file,
and no answer tells one user about another's trace or the server's paths."""

import gzip
import io
import os
import threading
import tracemalloc

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

import schedulers
from cloudsched_web.api.models import ApiToken
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import store
from schedulers.core import swf

pytestmark = pytest.mark.django_db

RECORD = b"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n"
SECRET = "s3cr3t-key-do-not-print-0123456789abcdefghij"


def _upload(name, data):
    f = io.BytesIO(data)
    f.name = name
    return f


def test_an_amplified_upload_is_stored_in_constant_memory():
    blob = b"".join(gzip.compress(RECORD * 200_000, 6) for _ in range(4))  # 38 MB of text in 4 members
    tracemalloc.start()
    try:
        trace, created = store(io.BytesIO(blob), "amplified", imported=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert created and trace.jobs == 800_000 and trace.text_bytes == len(RECORD) * 800_000
    assert trace.stored_bytes == len(blob)  # the gzip kept as sent
    assert peak < 12 << 20, f"peak {peak:,} bytes"


def test_store_bounds_at_the_limit_and_one_past_it(monkeypatch):
    monkeypatch.setattr(swf, "MAX_LINES", 100)
    assert store(gzip.compress(RECORD * 100), "at the limit", imported=True)[0].jobs == 100
    with pytest.raises(schedulers.ScenarioError) as info:
        store(gzip.compress(RECORD * 60) + gzip.compress(RECORD * 41), "one past", imported=True)
    assert info.value.errors[0]["field"] == "file"
    assert "more than 100 lines" in info.value.errors[0]["message"]
    assert Trace.objects.count() == 1


@pytest.mark.parametrize("name", ["/dev/zero", "/proc/self/environ"])
def test_import_trace_refuses_what_is_not_a_regular_file(name):
    with pytest.raises(CommandError, match="not a regular file"):
        call_command("import_trace", name)


def test_import_trace_refuses_a_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "log.swf"
    os.mkfifo(fifo)
    outcome = {}

    def run():
        try:
            call_command("import_trace", str(fifo))
        except CommandError as exc:
            outcome["error"] = str(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive() and "not a regular file" in outcome["error"]


def test_import_trace_through_a_symlink_to_a_kernel_file_is_refused(tmp_path):
    link = tmp_path / "innocent.swf"
    link.symlink_to("/proc/self/environ")
    with pytest.raises(CommandError, match="not a regular file"):
        call_command("import_trace", str(link))


def test_import_trace_never_prints_a_non_swf_file(tmp_path):
    secret = tmp_path / "secret_key"
    secret.write_text(SECRET)
    link = tmp_path / "log.swf"
    link.symlink_to(secret)
    for path in (secret, link):
        with pytest.raises(CommandError) as info:
            call_command("import_trace", str(path))
        message = str(info.value)
        assert "line 1: expected 18 fields, found 1" in message
        assert SECRET[:6] not in message and "invalid scenario" not in message
    assert not Trace.objects.exists()


def test_import_trace_keeps_the_readers_bounds(tmp_path, monkeypatch):
    monkeypatch.setattr(swf, "MAX_BYTES", len(RECORD) * 10)
    path = tmp_path / "log.swf"
    path.write_bytes(RECORD * 10)
    call_command("import_trace", str(path), stdout=io.StringIO())
    path.write_bytes(RECORD * 10 + b"\n")
    with pytest.raises(CommandError, match=f"more than {len(RECORD) * 10:,} bytes"):
        call_command("import_trace", str(path))


def test_already_stored_names_the_trace_as_the_uploader_knows_it(client, alice, bob):
    client.force_login(alice)
    client.post(reverse("traces"), {"file": _upload("a.swf", RECORD), "name": "probe small.swf"}, follow=True)
    client.logout()
    client.force_login(bob)
    page = client.post(reverse("traces"), {"file": _upload("b.swf", RECORD), "name": "mine"}, follow=True)
    text = page.content.decode()
    assert "Already stored: mine" in text and "probe small.swf" not in text


def test_another_users_trace_answers_as_an_unknown_one(client, alice, bob):
    trace, _ = store(RECORD, "alice's", owner=alice)
    headers = {"Authorization": f"Bearer {ApiToken.issue(bob, 't')[1]}"}
    foreign, unknown = (client.get(f"/api/v1/traces/{pk}", headers=headers) for pk in (trace.pk, trace.pk + 99))
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json()["error"]["message"].replace(str(trace.pk), "N") == (
        unknown.json()["error"]["message"].replace(str(trace.pk + 99), "N")
    )
    config = schedulers.example("backfill")
    config["workload"] = {"kind": "trace", "trace": trace.ref}
    answers = []
    for ref in (trace.ref, "sha256:" + "0" * 64):
        config["workload"]["trace"] = ref
        response = client.post("/api/v1/scenarios", config, content_type="application/json", headers=headers)
        assert response.status_code == 400
        error = response.json()["error"]
        answers.append((error["field"], error["message"].replace(ref, "REF"), error["allowed"]))
    assert answers[0] == answers[1]


def test_upload_errors_start_at_the_field(client, alice):
    headers = {"Authorization": f"Bearer {ApiToken.issue(alice, 't')[1]}"}
    response = client.post("/api/v1/traces", {"file": _upload("bad.swf", b"1 2 3\n")}, headers=headers)
    error = response.json()["error"]
    assert response.status_code == 400 and error["message"].startswith("file: SWF line 1")
    assert "invalid scenario" not in error["message"]


def test_path_errors_name_no_server_directory(tmp_path, monkeypatch):
    from schedulers.core.traces import check_trace_path

    monkeypatch.setenv("CLOUDSCHED_RESTRICT_TRACE_PATHS", "1")
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(tmp_path))
    outside = check_trace_path("/etc/x.swf")[0]
    assert str(tmp_path) not in outside["message"] + outside["allowed"]
    monkeypatch.delenv("CLOUDSCHED_RESTRICT_TRACE_PATHS")
    fifo = tmp_path / "f.swf"
    os.mkfifo(fifo)
    assert "not a regular file" in check_trace_path(str(fifo))[0]["message"]
    assert "no such file" in check_trace_path(str(tmp_path / "none.swf"))[0]["message"]
