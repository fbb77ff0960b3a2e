"""cloudsched settings: one file, driven by the environment (healthchecks style).

SECRET_KEY, DEBUG, ALLOWED_HOSTS, DATABASE_URL (default SQLite) and
CELERY_BROKER_URL (default the local Redis) come from the environment; a missing
SECRET_KEY is generated once and kept in var/secret_key (git-ignored).
"""

import ipaddress
import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

# Arrow's buffers from the C library's malloc (read when Arrow first allocates, so set before any request or
# run): large buffers are mapped and unmapped, and a web process gives back what a 200,000-job window needed.
# With mimalloc, Arrow's default, the bench's zoom session (bench/results_scale.py) left 266 MB resident; with
# this, 141 MB. An operator's ARROW_DEFAULT_MEMORY_POOL (mimalloc, jemalloc, system) wins.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CLOUDSCHED_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)
# matplotlib (study figures as SVG/PDF) keeps its font cache with the instance, not in the home directory.
os.environ.setdefault("MPLCONFIGDIR", str(VAR_DIR / "matplotlib"))


def envbool(name, default):
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def envint(name, default):
    return int(os.environ.get(name, default))


def envlist(name, default=""):
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _trusted_proxies():
    """TRUSTED_PROXIES as a list of addresses/networks; loopback by default when BEHIND_PROXY is on."""
    specs = envlist("TRUSTED_PROXIES", "127.0.0.1,::1" if envbool("BEHIND_PROXY", False) else "")
    for spec in specs:
        try:
            ipaddress.ip_network(spec, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES: {spec!r} is not an IP address or network; allowed: comma-separated "
                "addresses or CIDR networks, e.g. 127.0.0.1,::1,10.0.0.0/8"
            ) from None
    return specs


def _secret_key():
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()

# Scenarios come from untrusted users: a trace named by path must lie in a trace directory
# (var/traces, or CLOUDSCHED_TRACE_DIRS); see schedulers.core.traces.
os.environ.setdefault("CLOUDSCHED_TRACE_DIRS", str(VAR_DIR / "traces"))
os.environ.setdefault("CLOUDSCHED_RESTRICT_TRACE_PATHS", "1")
(VAR_DIR / "traces").mkdir(exist_ok=True)
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "cloudsched_web.traces",
    "cloudsched_web.scenarios",
    "cloudsched_web.runs",
    "cloudsched_web.api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "cloudsched_web.csp.ContentSecurityPolicyMiddleware",  # outside WhiteNoise: static files get it too
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "cloudsched_web.bodylimit.BodyLimitMiddleware",  # before anything reads request.POST (CSRF, the throttle)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "cloudsched_web.ratelimit.LoginRateLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "cloudsched_web.urls"
WSGI_APPLICATION = "cloudsched_web.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'cloudsched.sqlite3'}", conn_max_age=envint("DB_CONN_MAX_AGE", 0)
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the web server read while a worker writes progress. IMMEDIATE takes the write lock at
    # BEGIN, where the busy timeout waits for it: a DEFERRED transaction that reads and then writes
    # fails at once with "database is locked" when another write committed in between (API clones
    # did under load: bench/web_concurrency.py, tests/integration/test_sqlite_concurrency.py).
    # The timeout rides out write bursts. One machine only: README.md says when PostgreSQL is needed.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    # A file (not :memory:) so that a real Celery worker process sees the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}

# The database cache is shared by every web process and needs no extra service
# (`manage.py createcachetable`); CACHE_URL=redis://… switches to Redis.
# Throttling counters (login failures, API rate) have a cache of their own: the database cache culls a
# third of its rows when it holds more than MAX_ENTRIES, and cached pages must not evict a counter.
_REDIS_CACHE = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": os.environ.get("CACHE_URL")}
CACHES = {
    "default": _REDIS_CACHE
    if os.environ.get("CACHE_URL")
    else {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "cloudsched_cache"},
    "throttle": _REDIS_CACHE
    if os.environ.get("CACHE_URL")
    else {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "cloudsched_throttle",
        "OPTIONS": {"MAX_ENTRIES": 1_000_000},  # rows are tiny and expire within the window
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
# Login throttling (cloudsched_web/ratelimit.py): failures per (client, account) and per client in a sliding
# window. The client is REMOTE_ADDR, or behind a trusted proxy the right-most untrusted CLIENT_IP_HEADER address.
LOGIN_FAILURES_PER_USER = envint("LOGIN_FAILURES_PER_USER", 5)
LOGIN_FAILURES_PER_IP = envint("LOGIN_FAILURES_PER_IP", 30)
LOGIN_FAILURE_WINDOW_S = envint("LOGIN_FAILURE_WINDOW_S", 900)
TRUSTED_PROXIES = _trusted_proxies()
CLIENT_IP_HEADER = os.environ.get("CLIENT_IP_HEADER", "X-Forwarded-For").strip()
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")  # collectstatic (run.sh) writes here
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
# Front-end packages come from npm (package.json). Only the files the pages load are served, as
# vendor/<package>/<file> (with the source maps they name): see cloudsched_web.staticfinders.
VENDOR_DIR = BASE_DIR / "node_modules"
VENDOR_FILES = [
    "chart.js/dist/chart.umd.js",
    "chartjs-plugin-zoom/dist/chartjs-plugin-zoom.min.js",
    "hammerjs/hammer.min.js",
    "swagger-ui-dist/swagger-ui-bundle.js",
    "swagger-ui-dist/swagger-ui.css",
    "swagger-ui-dist/favicon-32x32.png",
]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "cloudsched_web.staticfinders.VendorFinder",
]
# Result files (Parquet columns of schedules, jobs, series: results.store) go to the default storage:
# a directory shared by web and workers here; any django-storages backend when workers run elsewhere.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "cloudsched_web.staticstorage.ModuleManifestStorage"  # whitenoise's, with ES module imports hashed
    },
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_MANIFEST_STRICT = False

# Security: strict by default when DEBUG is off (`manage.py check --deploy` is clean);
# SECURE_HTTPS=0 serves plain HTTP on a trusted network.
SECURE_HTTPS = envbool("SECURE_HTTPS", not DEBUG)
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
SECURE_SSL_REDIRECT = SECURE_HTTPS
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HTTPS
SECURE_HSTS_PRELOAD = SECURE_HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if envbool("BEHIND_PROXY", False) else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy (cloudsched_web.csp): scripts, styles, fonts and fetches from this origin
# only; no inline script, inline event handler, inline style, eval, plugin, <base> or framing.
# Images may also be data: URIs (Swagger UI's stylesheet draws its icons with them).
_SELF, _NONE = "'self'", "'none'"
SECURE_CSP = {
    "default-src": [_SELF],
    "script-src": [_SELF],
    "style-src": [_SELF],
    "img-src": [_SELF, "data:"],
    "font-src": [_SELF],
    "connect-src": [_SELF],
    "object-src": [_NONE],
    "base-uri": [_SELF],
    "frame-ancestors": [_NONE],
    "form-action": [_SELF],
}
if not SECURE_HTTPS and not DEBUG:
    SILENCED_SYSTEM_CHECKS = ["security.W004", "security.W008", "security.W012", "security.W016"]

# Celery (cookiecutter-django style): JSON only, late acks, time limits.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
CELERY_RESULT_BACKEND = None  # the Run row is the source of truth
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = envint("RUN_SOFT_TIME_LIMIT_S", 3600)
CELERY_TASK_TIME_LIMIT = CELERY_TASK_SOFT_TIME_LIMIT + 60
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 300}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE = {
    "sweep-queued-runs": {
        "task": "cloudsched_web.runs.tasks.sweep_queued_runs",
        "schedule": envint("SWEEP_EVERY_S", 30),
    },
}
RUN_MEMORY_LIMIT_MB = envint("RUN_MEMORY_LIMIT_MB", 8192)  # per worker process; 0 = no limit
# A pool process whose resident memory ever grew past this (its peak RSS, checked after every task) is replaced
# before it takes the next run: glibc rarely gives a large run's heap back, and a failed or cancelled run's
# gigabytes otherwise stay with the next user's run under the same RUN_MEMORY_LIMIT_MB. 0 = never.
WORKER_RECYCLE_MEMORY_MB = envint("WORKER_RECYCLE_MEMORY_MB", 1536)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = WORKER_RECYCLE_MEMORY_MB * 1024 or None  # Celery counts KiB
RUN_HEARTBEAT_EVERY_S = envint("RUN_HEARTBEAT_EVERY_S", 30)
# Fair dispatch (runs/services.release): at most this many runs of one user wait at the broker at a time (the
# rest are held in the database and sent as workers take them); 0 = send everything at once.
RUN_DISPATCH_PER_OWNER = envint("RUN_DISPATCH_PER_OWNER", 1)
# Queued or running runs one user may have at a time (a study counts each point); 0 = no cap.
RUN_QUEUE_MAX_PER_USER = envint("RUN_QUEUE_MAX_PER_USER", 1000)
# A run estimated at this many CPU seconds or more is spread over every free worker as its (algorithm,
# repetition) units and merged (runs/fanout.py); -1: never. Units share MEDIA_ROOT (one host, or shared).
RUN_FAN_OUT_MIN_CPU_S = envint("RUN_FAN_OUT_MIN_CPU_S", 60)
# No heartbeat for this long: the run is requeued. 0 (default): three missed heartbeats (runs/models.py).
RUN_STALE_AFTER_S = envint("RUN_STALE_AFTER_S", 0)
LIST_PAGE_SIZE = 50  # rows a page on the home and studies lists and in the admin (bench/list_pages.py)
TRASH_KEEP_DAYS = envint("TRASH_KEEP_DAYS", 30)  # deleted scenarios, studies and runs: restorable this long

# Request bodies (cloudsched_web/bodylimit.py): a form or JSON body is read into memory and parsed there, so
# it is refused above DATA_UPLOAD_MAX_MEMORY_SIZE from its Content-Length, before anything reads it (Django's
# 2.5 MiB: a 48 MB urlencoded log-in POST cost 3.3 GB and 17 s before its 403). Large SWF text goes as a file:
# an uploaded file above FILE_UPLOAD_MAX_MEMORY_SIZE streams to a temporary file, never into memory.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440)
DATA_UPLOAD_MAX_NUMBER_FIELDS = envint("DATA_UPLOAD_MAX_NUMBER_FIELDS", 1000)
FILE_UPLOAD_MAX_MEMORY_SIZE = envint("FILE_UPLOAD_MAX_MEMORY_SIZE", 2_621_440)
# An uploaded SWF trace file (form or POST /api/v1/traces), as sent (gzip counts compressed); its text is
# further bounded by CLOUDSCHED_SWF_MAX_BYTES / _MAX_LINES (schedulers.core.swf). docs/formats.md.
TRACE_UPLOAD_MAX_BYTES = envint("TRACE_UPLOAD_MAX_BYTES", 256 * 1024 * 1024)
# Uploads one user may have being parsed and stored at once (traces/services.upload_slot); 0 = no cap.
TRACE_UPLOADS_PER_USER = envint("TRACE_UPLOADS_PER_USER", 2)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
