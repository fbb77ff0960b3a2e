"""A stored trace's cost estimate comes from the summary computed while it was streamed in at upload."""

import gzip

import pytest

import schedulers
from cloudsched_web.traces.catalog import StoredTraces
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import store

pytestmark = pytest.mark.django_db


def _lines(n, size, start=0):
    return "".join(
        f"{start + i + 1} {start + i} 0 100 {size} -1 -1 {size} 200 -1 1 1 1 1 1 -1 -1 -1\n" for i in range(n)
    )


def test_the_upload_stores_the_exact_summary_and_the_estimate_reads_it(alice):
    # Small jobs first, then wide ones, in two gzip members of which the last is one line.
    body = gzip.compress(_lines(25_000, 1).encode()) + gzip.compress((_lines(4_999, 128, 25_000)).encode())
    body += gzip.compress(_lines(1, 128, 29_999).encode())
    trace, created = store(body, "shapes", alice)
    assert created
    trace.refresh_from_db()
    assert (trace.usable_jobs, trace.size_sum, trace.largest_job) == (30_000, 25_000 + 5_000 * 128, 128)
    assert StoredTraces().summary(trace.ref)["size_sum"] == trace.size_sum
    scenario = {"family": "backfill", "seed": 1, "repetitions": 1, "algorithms": ["easy"],
                "datacenter": {"processors": 128}, "workload": {"kind": "trace", "trace": trace.ref}}  # fmt: skip
    est = schedulers.estimate(scenario)
    assert "30,000 jobs of 22 processors on average" in est.detail["shape"]


def test_the_estimate_answers_from_the_row_not_the_file(alice):
    trace, _ = store(_lines(100, 4).encode(), "small", alice)
    Trace.objects.filter(pk=trace.pk).update(usable_jobs=123_456, size_sum=999_999)  # what the row says wins
    assert StoredTraces().summary(trace.ref)["usable_jobs"] == 123_456


def test_a_trace_stored_before_the_sum_was_kept_is_read_through(alice):
    trace, _ = store(_lines(100, 4).encode(), "older", alice)
    Trace.objects.filter(pk=trace.pk).update(size_sum=None)
    found = StoredTraces().summary(trace.ref)
    assert (found["usable_jobs"], found["size_sum"]) == (100, 400)


def test_uploads_being_stored_at_once_are_capped_per_user(alice, bob, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from cloudsched_web.ratelimit import take_slot
    from cloudsched_web.traces.services import UPLOAD_SLOT_S, store_upload

    settings.TRACE_UPLOADS_PER_USER = 2

    def upload(user, i):
        return store_upload(SimpleUploadedFile(f"t{i}.swf", _lines(3, 1, i).encode()), user)

    take_slot(f"trace-upload:{alice.pk}", 2, UPLOAD_SLOT_S)  # one of hers in progress
    assert upload(alice, 10)[1]  # the limit: her second at once
    take_slot(f"trace-upload:{alice.pk}", 2, UPLOAD_SLOT_S)  # now two in progress
    with pytest.raises(schedulers.ScenarioError) as refused:
        upload(alice, 20)  # limit + 1
    assert "at most 2 at a time per user (TRACE_UPLOADS_PER_USER)" in refused.value.errors[0]["allowed"]
    assert upload(bob, 30)[1]  # bob's uploads are not alice's
