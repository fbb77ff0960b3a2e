"""Families record how a segment ended (``ended``), so the result page can mark kills and migrations."""

import schedulers


def _events(run, reason):
    return {(s["job"], s["end"]) for s in run["schedule"] if s.get("ended") == reason}


def test_backfill_marks_every_kill_and_migration_on_its_segments():
    result = schedulers.run(schedulers.example("backfill"))
    runs = {r["algorithm"]: r for r in result["runs"] if r["repetition"] == 0}
    assert runs["keasy"]["metrics"]["kills"] > 0 and runs["measy"]["metrics"]["migrations"] > 0
    # One event per kill (a job's stretch ends on all its processors at once).
    assert len(_events(runs["keasy"], "killed")) == runs["keasy"]["metrics"]["kills"]
    assert len(_events(runs["measy"], "migrated")) == runs["measy"]["metrics"]["migrations"]
    assert not _events(runs["keasy"], "migrated") and not _events(runs["easy"], "killed")
    for s in runs["measy"]["schedule"]:
        if s.get("ended") == "migrated":
            assert s["kind"] == "bg"  # only background jobs are moved (Alg. 2)


def test_vm_reservations_marks_the_segment_a_vm_leaves():
    result = schedulers.run(schedulers.example("vm_reservations"))
    assert result["runs"]  # the loop below checks each
    for run in result["runs"]:
        moved = _events(run, "migrated")
        assert len(moved) == sum(j["migrations"] for j in run["jobs"])
        by_job = {}
        for s in run["schedule"]:
            by_job.setdefault(s["job"], []).append(s)
        for job, end in moved:  # the next piece of the VM starts there, on another PM
            pieces = sorted(by_job[job], key=lambda s: s["start"])
            k = next(i for i, s in enumerate(pieces) if s["end"] == end)
            assert pieces[k + 1]["start"] == end and pieces[k + 1]["resource"] != pieces[k]["resource"]
