"""Stored traces: summary, dedupe, import command, uploads (form and API), pages without the text,
presets that find a stored log, and a run whose worker reads the stored file."""

import gzip
import io
import json

import pytest
from django.core.management import CommandError, call_command

import schedulers
from cloudsched_web.api.models import ApiToken
from cloudsched_web.runs.models import Run
from cloudsched_web.runs.tasks import run_simulation
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import local_path, store
from schedulers.core.swf import read_swf
from tests.api.conftest import Api
from tests.traces import NASA, needs_trace, trace

pytestmark = pytest.mark.django_db

# Five records: job 3 has no allocated size (its requested 2 counts), job 4 no runtime (not usable).
SWF = """\
; Version: 2.2
; MaxProcs: 16
1   0  5 100  4 -1 -1  4 200 -1 1 1 1 1 1 -1 -1 -1
2  60  0 300  8 -1 -1  8 400 -1 1 1 1 1 1 -1 -1 -1
3 120 10  50 -1 -1 -1  2 100 -1 1 1 1 1 1 -1 -1 -1
4 400  0  -1  4 -1 -1  4 100 -1 0 1 1 1 1 -1 -1 -1
5 600  0 200 16 -1 -1 16 300 -1 1 1 1 1 1 -1 -1 -1
"""
# By hand: usable submits 0, 60, 120, 600 → span 600 s; work 4·100 + 8·300 + 2·50 + 16·200 = 6100
# processor-seconds on 16 processors (MaxProcs) → natural load 6100 / (16 · 600).
SPAN, LOAD = 600.0, 6100 / (16 * 600)
MARK_LINE = "2  60  0 300  8"  # a piece of the text that must never appear on a page


def _backfill(trace_ref=None, **workload):
    config = schedulers.example("backfill")
    config["algorithms"] = ["fcfs", "easy"]
    config["workload"] = {"kind": "trace", **({"trace": trace_ref} if trace_ref else {}), **workload}
    return config


def test_the_summary_is_what_the_hand_count_gives(alice):
    t, created = store(SWF.encode(), "hand-made", owner=alice)
    assert created
    assert (t.jobs, t.usable_jobs, t.processors) == (5, 4, 16)
    assert t.span_s == SPAN
    assert t.natural_load == pytest.approx(LOAD)
    assert t.text_bytes == len(SWF.encode())
    assert t.ref == "sha256:" + t.sha256 and len(t.sha256) == 64
    stored = local_path(t).read_bytes()
    assert stored[:2] == b"\x1f\x8b" and gzip.decompress(stored).decode() == SWF  # kept gzipped, nothing lost
    assert t.name_for(alice) == "hand-made"


def test_without_maxprocs_the_largest_job_sizes_the_machine(alice):
    text = "\n".join(line for line in SWF.splitlines() if "MaxProcs" not in line) + "\n"
    t, _ = store(text.encode(), "no header", owner=alice)
    assert t.processors == 16  # job 5
    assert t.natural_load == pytest.approx(LOAD)


def test_same_content_is_the_same_trace_plain_or_gzipped_and_each_user_keeps_their_name(alice, bob):
    first, created1 = store(SWF.encode(), "alice's log", owner=alice)
    again, created2 = store(gzip.compress(SWF.encode()), "bob's copy", owner=bob)
    assert created1 and not created2
    assert again.pk == first.pk and Trace.objects.count() == 1
    assert first.name_for(alice) == "alice's log"
    assert first.name_for(bob) == "bob's copy"  # never Alice's name
    assert set(Trace.visible_to(bob)) == {first}


def test_a_malformed_trace_is_refused_naming_the_field_and_line(alice):
    bad = SWF.replace("300  8 -1", "3x0  8 -1")
    with pytest.raises(schedulers.ScenarioError) as exc:
        store(bad.encode(), "bad", owner=alice, field="file")
    error = exc.value.errors[0]
    assert error["field"] == "file"
    assert "line 4" in error["message"] and "field 4 (run_time)" in error["message"]
    assert not Trace.objects.exists()


def test_import_trace_registers_a_server_wide_trace(tmp_path):
    path = tmp_path / "hand.swf.gz"
    path.write_bytes(gzip.compress(SWF.encode()))
    out = io.StringIO()
    call_command("import_trace", str(path), stdout=out)
    t = Trace.objects.get()
    text = out.getvalue()
    assert f"trace {t.pk}" in text and t.sha256 in text and "jobs       5 (4 usable)" in text
    assert "processors 16" in text and "span       600 s" in text and f"{LOAD:.3f}" in text
    assert t.imported and t.owner is None and t.name == "hand.swf.gz"
    out = io.StringIO()
    call_command("import_trace", str(path), "--name", "renamed", stdout=out)
    assert "already stored" in out.getvalue() and Trace.objects.get().name == "renamed"


def test_import_trace_takes_the_trace_directories_once_each(tmp_path, monkeypatch):
    import schedulers.core.traces as core_traces

    monkeypatch.setattr(core_traces, "_SHARED", tmp_path / "no-shared")  # only the directory below
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(tmp_path))
    (tmp_path / "a.swf").write_text(SWF)
    (tmp_path / "b.swf.gz").write_bytes(gzip.compress(SWF.replace("\n5 600", "\n5 700").encode()))
    (tmp_path / "notes.txt").write_text("not a trace")
    out = io.StringIO()
    call_command("import_trace", "--trace-dirs", stdout=out)
    assert "2 trace files in the trace directories, 2 not yet imported" in out.getvalue()
    assert sorted(Trace.objects.values_list("name", flat=True)) == ["a.swf", "b.swf.gz"]
    out = io.StringIO()
    call_command("import_trace", "--trace-dirs", stdout=out)  # run.sh does this at every start
    assert "2 not yet imported" not in out.getvalue() and "0 not yet imported" in out.getvalue()
    assert Trace.objects.count() == 2
    with pytest.raises(CommandError, match="give an SWF file"):
        call_command("import_trace")


def test_import_trace_says_what_is_wrong(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_trace", str(tmp_path / "absent.swf"))
    (tmp_path / "bad.swf").write_text("1 2 3\n")
    with pytest.raises(CommandError, match="line 1: expected 18 fields"):
        call_command("import_trace", str(tmp_path / "bad.swf"))


@needs_trace(NASA)
def test_import_trace_of_a_real_log_matches_the_reader():
    call_command("import_trace", str(trace(NASA)), stdout=io.StringIO())
    t = Trace.objects.get()
    parsed = read_swf(trace(NASA))
    assert t.jobs == len(parsed) and t.processors == parsed.header_int("MaxProcs")
    assert t.name == NASA


# Uploads on the scenario form and the API; pages show the summary, never the text


def _login(client, user):
    client.force_login(user)
    return client


def test_the_form_stores_an_uploaded_file_and_the_pages_never_show_its_text(client, alice):
    from django.core.files.uploadedfile import SimpleUploadedFile

    _login(client, alice)
    config = _backfill()
    upload = SimpleUploadedFile("log.swf.gz", gzip.compress(SWF.encode()), content_type="application/gzip")
    response = client.post(
        "/scenarios/new/", {"family": "backfill", "config": json.dumps(config), "trace_file": upload}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    scenario = Scenario.objects.get()
    t = Trace.objects.get()
    assert scenario.config["workload"]["trace"] == t.ref and scenario.config["workload"]["swf"] == ""
    assert MARK_LINE not in json.dumps(scenario.config)
    for url in (f"/scenarios/{scenario.pk}/", f"/scenarios/{scenario.pk}/edit/"):
        page = client.get(url).content.decode()
        assert MARK_LINE not in page
        assert t.sha256[:12] in page and f"/traces/{t.pk}/download/" in page and "log.swf.gz" in page
    download = client.get(f"/traces/{t.pk}/download/")
    assert gzip.decompress(b"".join(download.streaming_content)).decode() == SWF


def test_a_bad_upload_on_the_form_is_named_with_its_line(client, alice):
    from django.core.files.uploadedfile import SimpleUploadedFile

    _login(client, alice)
    upload = SimpleUploadedFile("bad.swf", b"; x\n1 2 3\n")
    response = client.post(
        "/scenarios/new/", {"family": "backfill", "config": json.dumps(_backfill()), "trace_file": upload}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "trace_file" in errors and "line 2: expected 18 fields, found 3" in errors["trace_file"][0]
    assert not Scenario.objects.exists() and not Trace.objects.exists()


def test_inline_text_saved_through_the_form_becomes_a_trace(client, alice):
    _login(client, alice)
    response = client.post("/scenarios/new/", {"family": "backfill", "config": json.dumps(_backfill(swf=SWF))})
    assert response.status_code == 302
    scenario = Scenario.objects.get()
    assert scenario.config["workload"]["trace"] == Trace.objects.get().ref
    assert MARK_LINE not in client.get(f"/scenarios/{scenario.pk}/").content.decode()


def test_the_admin_shows_the_summary_not_the_text(client, alice, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "r@example.org", "pw")
    t, _ = store(SWF.encode(), "hand-made", owner=alice)
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="s", config=_backfill(t.ref))
    client.force_login(admin)
    page = client.get(f"/admin/scenarios/scenario/{scenario.pk}/change/").content.decode()
    assert "5 jobs, 16 processors, span 600 s" in page and MARK_LINE not in page
    page = client.get(f"/admin/traces/trace/{t.pk}/change/").content.decode()
    assert t.sha256 in page and MARK_LINE not in page


def test_api_upload_list_get_and_download(client, alice, bob):
    api = Api(client, ApiToken.issue(alice, "t")[1])
    headers = {"Authorization": f"Bearer {ApiToken.issue(alice, 'u')[1]}"}
    body = {"file": io.BytesIO(SWF.encode()), "name": "via api"}
    body["file"].name = "log.swf"
    response = client.post("/api/v1/traces", body, headers=headers)
    assert response.status_code == 201, response.content
    out = response.json()
    assert (out["jobs"], out["processors"], out["span_s"], out["name"]) == (5, 16, SPAN, "via api")
    assert (out["processors_from"], out["largest_job"]) == ("MaxProcs", 16)
    assert out["natural_load"] == pytest.approx(LOAD) and out["ref"] == "sha256:" + out["sha256"]
    assert out["download_url"].endswith(f"/api/v1/traces/{out['id']}/download")
    again = io.BytesIO(gzip.compress(SWF.encode()))
    again.name = "log.swf.gz"
    response = client.post("/api/v1/traces", {"file": again}, headers=headers)
    assert response.status_code == 200 and response.json()["id"] == out["id"]  # same content, same trace
    assert [t["id"] for t in api.get("/traces").json()["items"]] == [out["id"]]
    assert api.get(f"/traces/{out['id']}").json()["sha256"] == out["sha256"]
    download = client.get(f"/api/v1/traces/{out['id']}/download", headers=headers)
    assert gzip.decompress(b"".join(download.streaming_content)).decode() == SWF
    # The scenario refers to it; the API never returns the text.
    created = api.post("/scenarios", _backfill(out["ref"]))
    assert created.status_code == 201 and created.json()["config"]["workload"]["trace"] == out["ref"]
    # Bob cannot name Alice's trace in a scenario of his: it answers as a missing one.
    bob_api = Api(client, ApiToken.issue(bob, "b")[1])
    refused = bob_api.post("/scenarios", _backfill(out["ref"]))
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "workload.trace"


def test_api_bad_uploads_are_400s_naming_the_field(client, alice, settings):
    headers = {"Authorization": f"Bearer {ApiToken.issue(alice, 't')[1]}"}
    bad = io.BytesIO(SWF.replace("300  8 -1", "3x0  8 -1").encode())
    bad.name = "bad.swf"
    response = client.post("/api/v1/traces", {"file": bad}, headers=headers)
    error = response.json()["error"]
    assert response.status_code == 400 and error["field"] == "file" and "SWF line 4" in error["message"]
    settings.TRACE_UPLOAD_MAX_BYTES = 100
    big = io.BytesIO(SWF.encode())
    big.name = "big.swf"
    response = client.post("/api/v1/traces", {"file": big}, headers=headers)
    error = response.json()["error"]
    assert response.status_code == 400 and error["field"] == "file" and "at most 100 bytes" in error["allowed"]
    assert not Trace.objects.exists()


def test_inline_text_posted_to_the_api_is_stored_as_a_trace(client, alice):
    api = Api(client, ApiToken.issue(alice, "t")[1])
    response = api.post("/scenarios", _backfill(swf=SWF))
    assert response.status_code == 201
    assert MARK_LINE not in response.content.decode()
    assert response.json()["config"]["workload"]["trace"] == Trace.objects.get().ref


# The worker reads the stored file


def test_a_run_of_a_trace_referenced_scenario_reads_the_stored_file(alice):
    t, _ = store(SWF.encode(), "hand-made", owner=alice)
    config = _backfill(t.ref)
    scenario = Scenario.objects.create(owner=alice, family="backfill", name="s", config=config)
    run = Run.objects.create(scenario=scenario, config=scenario.config)
    run_simulation(run.pk)
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error
    header = run.load_result()
    assert header["scenario"]["workload"]["trace"] == t.ref
    jobs = {r["algorithm"]: r for r in header["runs"]}
    assert set(jobs) == {"fcfs", "easy"}
    # Without the stored file the run fails, saying which trace is missing.
    local_path(t).unlink()
    again = Run.objects.create(scenario=scenario, config=scenario.config)
    run_simulation(again.pk)
    again.refresh_from_db()
    assert again.status == Run.Status.FAILED and "workload.trace" in again.error and t.ref in again.error


# Presets that call for a real log


def test_a_preset_finds_the_stored_log_by_name_or_says_how_to_import_it(tmp_path):
    from schedulers.vm_reservations.presets import TRACE_NAME

    doc = schedulers.preset("vm_reservations", "fig5_7")
    assert doc["scenarios"][0]["workload"]["kind"] == "generator"
    assert doc["missing_traces"] == [
        f"{TRACE_NAME} is not in the stored traces: an administrator imports it with "
        f"`python manage.py import_trace /path/to/{TRACE_NAME}`"
    ]
    assert "import_trace" in doc["description"]
    path = tmp_path / TRACE_NAME
    path.write_bytes(gzip.compress(SWF.encode()))
    call_command("import_trace", str(path), stdout=io.StringIO())
    doc = schedulers.preset("vm_reservations", "fig5_7")
    assert "missing_traces" not in doc
    assert doc["scenarios"][0]["workload"]["trace"] == Trace.objects.get().ref


def test_a_users_upload_named_like_a_log_is_not_taken_for_it(alice):
    from schedulers.vm_reservations.presets import TRACE_NAME

    store(SWF.encode(), TRACE_NAME, owner=alice)  # only imported (server-wide) traces serve presets
    assert "missing_traces" in schedulers.preset("vm_reservations", "fig5_7")


def test_the_preset_page_warns_about_a_missing_log(client, alice):
    _login(client, alice)  # the study's runs are queued, not run (nothing commits in this test)
    response = client.post("/presets/vm_reservations/fig5_7/", {"scale": "small"}, follow=True)
    text = response.content.decode()
    assert "Real log missing" in text and "import_trace" in text


def test_a_trace_without_a_usable_job_is_refused(alice):
    with pytest.raises(schedulers.ScenarioError) as exc:
        store(b"; only a header\n", "empty", owner=alice, field="file")
    assert exc.value.errors[0]["field"] == "file" and "no usable job" in exc.value.errors[0]["message"]


def test_a_sweep_cannot_reach_another_users_trace(alice, bob):
    from cloudsched_web.runs.services import submit_sweep

    mine, _ = store(SWF.encode(), "bob's", owner=bob)
    theirs, _ = store(SWF.replace("; Version: 2.2", "; Version: 2.2 (alice)").encode(), "alice's", owner=alice)
    scenario = Scenario.objects.create(owner=bob, family="backfill", name="s", config=_backfill(mine.ref))
    with pytest.raises(schedulers.ScenarioError) as exc:
        submit_sweep(scenario, {"workload.trace": [mine.ref, theirs.ref]})
    assert [e["field"] for e in exc.value.errors] == ["points[1].workload.trace"]
    assert not Run.objects.exists()


def test_the_admin_keeps_a_trace_that_a_scenario_uses(client, alice, django_user_model):
    admin = django_user_model.objects.create_superuser("root", "r@example.org", "pw")
    used, _ = store(SWF.encode(), "used", owner=alice)
    unused, _ = store(SWF.replace("; Version: 2.2", "; other").encode(), "unused", owner=alice)
    Scenario.objects.create(owner=alice, family="backfill", name="s", config=_backfill(used.ref))
    client.force_login(admin)
    assert client.get(f"/admin/traces/trace/{used.pk}/delete/").status_code == 403
    assert client.post(f"/admin/traces/trace/{unused.pk}/delete/", {"post": "yes"}).status_code == 302
    assert list(Trace.objects.all()) == [used]


def test_a_deleted_users_upload_does_not_become_everyones(alice, bob):
    t, _ = store(SWF.encode(), "alice's", owner=alice)
    alice.delete()
    t.refresh_from_db()
    assert t.owner is None and not t.imported and t not in Trace.visible_to(bob)


def test_the_traces_page_lists_and_uploads(client, alice, bob):
    from django.core.files.uploadedfile import SimpleUploadedFile

    store(SWF.replace("; Version: 2.2", "; bob").encode(), "bob's private log", owner=bob)
    _login(client, alice)
    response = client.post("/traces/", {"file": SimpleUploadedFile("mine.swf", SWF.encode()), "name": "my log"})
    assert response.status_code == 302
    page = client.get("/traces/").content.decode()
    assert "my log" in page and "bob's private log" not in page and MARK_LINE not in page
    response = client.post("/traces/", {"file": SimpleUploadedFile("bad.swf", b"1 2\n")}, follow=True)
    assert "SWF line 1: expected 18 fields, found 2" in response.content.decode()


def test_the_sweeper_collects_traces_nobody_holds_or_uses_with_their_files(
    alice, bob, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.core.files.storage import default_storage
    from django.utils import timezone

    from cloudsched_web.runs import trash
    from cloudsched_web.traces.models import TraceHolder

    def variant(tag):
        return SWF.replace("; Version: 2.2", f"; {tag}").encode()

    gone, _ = store(variant("gone"), "gone", owner=alice)  # its scenario purged, its uploader's account gone
    waiting, _ = store(variant("waiting"), "waiting", owner=alice)  # its scenario still in the trash
    held, _ = store(variant("held"), "held", owner=bob)  # in bob's traces, used by nothing
    server, _ = store(variant("server"), "server", imported=True)
    old = timezone.now() - timedelta(days=trash.keep_days() + 1)
    Scenario.objects.create(owner=alice, family="backfill", name="a", config=_backfill(gone.ref), trashed_at=old)
    Scenario.objects.create(owner=alice, family="backfill", name="b", config=_backfill(waiting.ref),
                            trashed_at=timezone.now())  # fmt: skip
    TraceHolder.objects.filter(user=alice).delete()
    files = {t.sha256: t.file.name for t in (gone, waiting, held, server)}
    with django_capture_on_commit_callbacks(execute=True):
        trash.purge()
    assert sorted(Trace.objects.values_list("name", flat=True)) == ["held", "server", "waiting"]
    assert not default_storage.exists(files[gone.sha256])
    assert all(default_storage.exists(files[t.sha256]) for t in (waiting, held, server))


def test_the_traces_page_pages_through_every_trace(client, alice, settings):
    settings.LIST_PAGE_SIZE = 2
    for k in range(3):
        store(SWF.replace("; Version: 2.2", f"; copy {k}").encode(), f"log {k}", owner=alice)
    _login(client, alice)
    pages = [client.get("/traces/", {"page": k}).content.decode() for k in (1, 2)]
    assert sum(p.count(">log ") for p in pages) == 3  # no silent cap
    assert "of 3 (page 2 of 2)" in pages[1]


def _sized_swf(n_bytes):
    """A valid SWF file of exactly ``n_bytes`` (the trace padded with a comment line)."""
    body = SWF.encode()
    pad = n_bytes - len(body) - 3  # "; " + padding + "\n"
    assert pad >= 0
    return b"; " + b"x" * pad + b"\n" + body


@pytest.mark.parametrize("via", ["api", "page"])
def test_an_upload_of_exactly_the_limit_is_stored_and_one_byte_more_is_refused(client, alice, settings, via):
    settings.TRACE_UPLOAD_MAX_BYTES = limit = len(SWF.encode()) + 100
    headers = {"Authorization": f"Bearer {ApiToken.issue(alice, 't')[1]}"}
    client.force_login(alice)

    def upload(data, name):
        f = io.BytesIO(data)
        f.name = f"{name}.swf"
        if via == "api":
            return client.post("/api/v1/traces", {"file": f}, headers=headers)
        return client.post("/traces/", {"name": name, "file": f})

    over = upload(_sized_swf(limit + 1), "over")
    assert over.status_code in (200, 400) and f"at most {limit:,} bytes" in over.content.decode()
    assert not Trace.objects.exists()
    at = upload(_sized_swf(limit), "at")
    assert at.status_code in (201, 302), at.content.decode()[:500]
    assert Trace.objects.count() == 1 and Trace.objects.get().text_bytes == limit
