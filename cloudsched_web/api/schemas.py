"""Request and response models of the API (ninja Schemas are pydantic models).

Scenario bodies are not here: they are the families' own pydantic scenario
models, added to the OpenAPI description by :mod:`cloudsched_web.api.openapi`.
"""

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema

DbId = Annotated[int, Field(ge=1, le=2**62)]  # SQLite integers are 64-bit


class ErrorDetail(Schema):
    field: str
    message: str
    allowed: str | None = None


class ErrorBody(Schema):
    code: str = Field(description="machine-readable: invalid, not_found, unauthorized, rate_limited, too_large, …")
    message: str
    field: str | None = Field(None, description="the offending field (dotted path) when there is one")
    allowed: str | None = Field(None, description="the allowed values or range of that field")
    details: list[ErrorDetail] | None = Field(None, description="every invalid field, for validation errors")


class Error(Schema):
    error: ErrorBody


class FamilyOut(Schema):
    name: str
    description: str
    algorithms: dict[str, str]
    # algorithm -> {"package": "cloudsched", "version": "built-in"} or a plug-in's package, version,
    # entry_point and sha256
    origins: dict[str, dict[str, str]]
    presets: list[str]
    summary_metrics: list[str]
    plugins_left_out: list[dict[str, str]] = Field(
        default_factory=list,
        description="installed plug-ins of this family that could not be loaded: {name, entry_point, error}",
    )


class FamilyDetail(FamilyOut):
    scenario_schema: dict[str, Any]
    example: dict[str, Any]


class PresetOut(Schema):
    family: str
    name: str
    title: str
    description: str
    claims: list[Any]
    scenarios: list[dict[str, Any]]


class ScenarioOut(Schema):
    id: int
    family: str
    name: str
    config: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    url: str


class ScenarioPage(Schema):
    count: int
    offset: int
    limit: int
    items: list[ScenarioOut]


class CloneIn(Schema):
    name: str | None = Field(None, min_length=1, max_length=200)


class Stalled(Schema):
    since: datetime = Field(description="the last heartbeat of the worker running this run")
    retry_at: datetime | None = Field(description="when the sweeper requeues it; null: it fails, not retried")
    text: str


class RunStatus(Schema):
    id: int
    status: str
    outcome: str = Field(
        description='the status as the pages say it: "partly failed" for a run that succeeded while some of its '
        "(algorithm, repetition) units failed (``error`` names them; the result keeps the others)"
    )
    progress: float
    message: str
    error: str
    finished: bool
    wall_time_s: float | None
    stalled: Stalled | None = Field(None, description="set when the run's worker stopped answering")
    remaining_s: float | None = Field(
        None, description="estimated seconds left (average rate so far); null until the run is 3 % done"
    )
    remaining: str = Field("", description='the same, as text: "about 2 min left" (empty when unknown)')


class UnitFailure(Schema):
    algorithm: str
    repetition: int
    error: str
    type: str
    plugin: str | None = Field(None, description="the plug-in (family.algorithm) whose unit failed, if one did")


class RunOut(RunStatus):
    scenario_id: int
    scenario_name: str = Field(description="the scenario's name when the run was submitted")
    study_id: int | None
    family: str
    point: dict[str, Any]
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    summary: dict[str, Any]
    url: str
    share_url: str | None
    failures: list[UnitFailure] = Field(
        default_factory=list, description="the units that failed in a run that is partly failed (else empty)"
    )


class RunPage(Schema):
    count: int
    offset: int
    limit: int
    items: list[RunOut]


class SweepIn(Schema):
    axes: dict[str, list[Any]] = Field(
        description='one or two scenario paths and their values, e.g. {"workload.load": [0.5, 0.7, 0.9]}',
        examples=[{"repetitions": [1, 2]}],
    )
    name: str = Field("", max_length=200)


class PresetIn(Schema):
    family: str = Field(max_length=64)
    preset: str = Field(max_length=100)
    scale: str = Field("paper", max_length=8, description="paper, or small (the preset's documented reduction)")
    readings: bool = Field(
        True,
        description="Also run the preset's points under each alternative reading it declares (one more run per "
        "point per reading, counted against your limits like any run), for a verdict per reading",
    )


class Verdict(Schema):
    text: str
    paper: str
    verdict: str = Field(description="reproduced, not reproduced, or not evaluated")
    measured: str
    note: str = Field("", description="What is known about a difference from the paper")


class StudyRun(Schema):
    id: int
    status: str
    progress: float
    point: dict[str, Any]
    summary: dict[str, Any]
    reading: str = Field("", description="The alternative reading this run evaluates (empty: the default)")


class StudyReadingOut(Schema):
    name: str
    text: str
    default: bool
    why: str = Field(description="For the default reading: why it is the default")
    params: dict[str, Any] = Field(description="The scenario parameters the reading sets")
    algorithms: list[str] = Field(
        description="The only algorithms whose runs the reading changes; the others' results are the default "
        "reading's (empty: all)"
    )
    runs: int
    failed: int = Field(description="Its runs that failed or were cancelled")
    state: str = Field(description="waiting, running, evaluated, or failed (every run failed: nothing to check)")
    verdicts: list[Verdict] | None = Field(description="The claims checked on this reading's runs (null before)")


class StudyOut(Schema):
    id: int
    scenario_id: int
    name: str
    description: str
    claims: list[Any]
    preset: str
    scale: str
    verdicts: list[Verdict] | None = Field(description="The claims checked when the study finished (null before)")
    axes: list[str]
    created_at: datetime
    status_counts: dict[str, int]
    finished: bool
    runs: list[StudyRun]
    readings: list[StudyReadingOut] = Field(
        description="A preset study's readings, default first, each with its verdicts (empty: none were run)"
    )
    share_url: str | None


class StudyPage(Schema):
    count: int
    offset: int
    limit: int
    items: list[StudyOut]


class ShareOut(Schema):
    token: str
    url: str


class RunIndex(Schema):
    index: int
    algorithm: str
    repetition: int
    wall_time_s: float | None
    metrics: dict[str, Any]
    segments: int
    jobs: int
    series: list[str]


class ResultSummary(Schema):
    family: str
    scenario_digest: str
    seed: int | None
    summary: dict[str, Any]
    runs: list[RunIndex]


class JobsPage(Schema):
    total: int
    offset: int
    limit: int
    jobs: list[dict[str, Any]]


class JobDistributions(Schema):
    measure: dict[str, Any] | None = Field(description="the measure shown: key, label, unit, log (a log axis suits it)")
    measures: list[dict[str, Any]] = Field(description="every per-job measure of this family's job records")
    repetition: str | int = Field("all", description="the repetition, or all pooled")
    repetitions: list[int] = []
    cdf_points: int = Field(0, description="quantiles per CDF (probabilities k / (n - 1)), of all the jobs")
    whiskers: str = ""
    algorithms: list[dict[str, Any]] = Field(description="per algorithm: jobs, missing (no value), cdf {x, p}, box")
    runs: list[dict[str, Any]] = Field(description="per algorithm × repetition: i, missing and its box")


class SegmentsOut(Schema):
    window: list[float]
    span: list[float]
    total: int = Field(description="segments overlapping the window")
    truncated: bool = Field(description="whether segments of the window follow this page")
    offset: int = Field(0, description="the page's first segment among the window's (start order)")
    next_offset: int | None = Field(None, description="the offset of the next page; null after the last")
    cut_by: Literal["limit", "bytes"] | None = Field(
        None, description="what ended a truncated page: `limit` segments, or 1 MB of JSON (fewer than `limit`)"
    )
    segments: list[dict[str, Any]]


class SeriesData(Schema):
    t: list[float] = Field(description="bucket starts (or the change points when there are few enough)")
    v: list[float] = Field(description="time-weighted mean per bucket: Σ v × bucket width = the series' integral")
    min: list[float] | None = Field(None, description="lowest level held in each bucket (absent when not bucketed)")
    max: list[float] | None = Field(None, description="highest level held in each bucket (absent when not bucketed)")


class SeriesOut(Schema):
    points: int
    length: int
    series: dict[str, SeriesData]


class TraceOut(Schema):
    id: int
    ref: str = Field(description="What a scenario names: `workload.trace` = this value")
    sha256: str = Field(description="SHA-256 of the SWF text (gzip undone)")
    name: str
    jobs: int = Field(description="Records in the trace")
    usable_jobs: int = Field(description="Records with a known submit time, runtime ≥ 0 and size > 0")
    processors: int = Field(description="The logged machine: header MaxProcs, else MaxNodes, else the largest job")
    processors_from: str = Field(description="Which of those `processors` is: MaxProcs, MaxNodes or largest job")
    largest_job: int | None = Field(description="Processors of the widest usable job")
    span_s: float = Field(description="Last minus first submit time of the usable jobs (s)")
    natural_load: float | None = Field(description="Σ size·runtime / (processors × span); null if the span is 0")
    text_bytes: int
    stored_bytes: int = Field(description="Size of the stored gzip file (what the download sends)")
    imported: bool = Field(description="Imported by an administrator (`manage.py import_trace`): usable by everyone")
    created_at: datetime
    download_url: str


class TracePage(Schema):
    count: int
    offset: int
    limit: int
    items: list[TraceOut]
