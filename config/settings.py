"""Settings: every value comes from the environment (see the table in README.md).

The defaults give the embedded run: a SQLite file, tasks inline, console mail.
Production sets DATABASE_URL, REDIS_URL, SECRET_KEY, DEBUG=false and
ALLOWED_HOSTS.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from csp import constants as csp

from config import env, errors, logs

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

SITE_NAME = env.string("SITE_NAME", "Scholar Pages")

DEBUG = env.boolean("DEBUG", True)

SECRET_KEY = env.string("SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise env.SettingError("SECRET_KEY", "required when DEBUG is off")
    SECRET_KEY = "embedded-run-only-not-a-secret"  # noqa: S105 - DEBUG runs only

ALLOWED_HOSTS = env.string_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
# The public address every absolute link in mail and feeds starts with (also the
# sites framework's domain, see config.sites): never the Host header of a request.
SITE_URL = env.site_url(
    "SITE_URL", "http://127.0.0.1:8000" if DEBUG else None, allowed_hosts=ALLOWED_HOSTS
)
# Except in a DEBUG run that sets none: links then follow the address (and port) each
# request came to, see config.sites.SiteUrlFromRequestMiddleware.
SITE_URL_FROM_REQUEST = DEBUG and env.raw("SITE_URL") is None

# How many reverse proxies stand in front of the web server, each appending to
# X-Forwarded-For. 0 (direct): X-Forwarded-For and X-Forwarded-Proto are ignored.
# Every rate limit and lockout keys on config.clientip.client_ip, which reads this.
TRUSTED_PROXY_COUNT = env.integer("TRUSTED_PROXY_COUNT", 0, minimum=0)
RATELIMIT_IP_META_KEY = "config.clientip.client_ip"
CSRF_TRUSTED_ORIGINS = env.origins("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "django.contrib.sitemaps",
    "django.contrib.postgres",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "csp",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.orcid",
    "catalogue",
    "ingestion",
    "similarity",
    "search",
    "profiles",
    "graph",
    "trust",
    "curation",
    "pages",
    "devtools",
]

MIDDLEWARE = [
    # Names the request (X-Request-ID) for every log record and answer after it.
    "config.logs.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.sites.SiteUrlFromRequestMiddleware",  # only in a DEBUG run without SITE_URL
    # Compresses what carries no secret, after every other middleware has written
    # the response (see config/compression.py for the BREACH rule).
    "config.compression.SecretFreeGZipMiddleware",
    # Access-Control-Allow-Origin: * on the read API's GET and HEAD answers, 304s included
    # (config/cors.py).
    "config.cors.PublicReadCorsMiddleware",
    # ETag and 304 for every GET whose answer was not given validators of its own
    # (kept pages, the API's records and the exports carry theirs: pages.conditional).
    "django.middleware.http.ConditionalGetMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django_ratelimit.middleware.RatelimitMiddleware",
    "axes.middleware.AxesMiddleware",
]

# Views limited with django_ratelimit's @ratelimit(block=True) answer through this view: 429.
RATELIMIT_VIEW = "config.views.ratelimited"

# BENCH_BARE_VIEW adds a trivial view at /bench/bare/, the reference of bench/pages_bench.py.
BENCH_BARE_VIEW = env.boolean("BENCH_BARE_VIEW", False)
ROOT_URLCONF = "config.bench_urls" if BENCH_BARE_VIEW else "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "config.context_processors.site",
            ],
        },
    },
]

# Database: a SQLite file unless DATABASE_URL names PostgreSQL.
DEFAULT_SQLITE_URL = f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
DATABASES = {"default": env.database("DATABASE_URL", DEFAULT_SQLITE_URL)}
DATABASES["default"]["CONN_MAX_AGE"] = env.integer("CONN_MAX_AGE", 60, minimum=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with bulk writes batched under PostgreSQL's parameter limit.
    DATABASES["default"]["ENGINE"] = "config.postgresql"
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 5
    # Parameters bound by the server let PostgreSQL keep the plan of a statement
    # a connection runs again and again (after five runs): a cold page's reads
    # are planned once per connection instead of once per request. Needs a
    # session of its own per connection: direct, or a pooler in session mode
    # (or one that tracks prepared statements).
    if env.boolean("DATABASE_PREPARED", True):
        DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=5)
else:
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: the Celery broker and the cache. Unset (the embedded run) means tasks run
# inline and the cache is a table of the database, one cache for every process of
# the machine (the server, a shell, an import command beside it): a page kept in
# one process's memory would outlive a change another process made. ``migrate``
# makes its table (``config.cache.cache_tables_made``).
REDIS_URL = env.redis_url("REDIS_URL")
EMBEDDED_CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "cache_entries",
        "OPTIONS": {"MAX_ENTRIES": 20000},
    }
}
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.FallbackRedisCache",  # memory while Redis is down
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "sp",
            "OPTIONS": {"socket_connect_timeout": 3, "socket_timeout": 3},
        }
    }
else:
    CACHES = EMBEDDED_CACHES
# Whole anonymous record pages are kept in the cache (pages/cache.py).
PAGE_CACHE = env.boolean("PAGE_CACHE", True)

CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
# A group with a callback (the parts of an import: a chord) counts its ended members
# here; every other task keeps no result (task_ignore_result in config/celery.py).
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_RESULT_EXPIRES = 7 * 24 * 3600
CELERY_TASK_ALWAYS_EAGER = REDIS_URL is None
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_TIME_LIMIT = env.integer("CELERY_TASK_TIME_LIMIT", 3600, minimum=1)
CELERY_TASK_SOFT_TIME_LIMIT = env.integer("CELERY_TASK_SOFT_TIME_LIMIT", 3300, minimum=1)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "config.admin_signin.AdminSignInBackend",  # first: refuses a paused admin sign-in
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
SITE_ID = 1
ACCOUNT_DEFAULT_HTTP_PROTOCOL = SITE_URL.split(":", 1)[0]
LOGIN_REDIRECT_URL = "/"
ACCOUNT_ADAPTER = "config.accounts.AccountAdapter"
ACCOUNT_FORMS = {"signup": "config.accounts.SignupForm"}
# A provider without an app (no ORCID_CLIENT_ID): its sign-in pages answer 404.
SOCIALACCOUNT_ADAPTER = "config.accounts.SocialAccountAdapter"

# Failed sign-ins: the site's (allauth) and the admin's (django-axes) follow one limit.
# After SIGN_IN_FAILURE_LIMIT failures for one account from one address within the
# cool-off, that pair is refused until the cool-off has passed; nothing locks forever.
SIGN_IN_FAILURE_LIMIT = 5
SIGN_IN_COOL_OFF = timedelta(minutes=5)
ACCOUNT_RATE_LIMITS = {
    "login_failed": (
        f"10/m/ip,{SIGN_IN_FAILURE_LIMIT}/{int(SIGN_IN_COOL_OFF.total_seconds())}s/key"
    ),
}
AXES_FAILURE_LIMIT = SIGN_IN_FAILURE_LIMIT
AXES_COOLOFF_TIME = SIGN_IN_COOL_OFF
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_ONLY_ADMIN_SITE = True
AXES_HANDLER = "config.admin_signin.AdminSignInHandler"
AXES_CLIENT_IP_CALLABLE = "config.clientip.client_ip"
AXES_LOCKOUT_CALLABLE = "config.admin_signin.locked_out"
AXES_RESET_ON_SUCCESS = True
# Failures while paused do not push the end of the pause further away.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_VERBOSE = False

ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
SOCIALACCOUNT_LOGIN_ON_GET = False  # the ORCID button posts, with a CSRF token
ORCID_CLIENT_ID = env.string("ORCID_CLIENT_ID")
ORCID_CLIENT_SECRET = env.string("ORCID_CLIENT_SECRET")
ORCID_BASE_DOMAIN = env.choice("ORCID_BASE_DOMAIN", "orcid.org", {"orcid.org", "sandbox.orcid.org"})
SOCIALACCOUNT_PROVIDERS = {
    "orcid": {
        "BASE_DOMAIN": ORCID_BASE_DOMAIN,
        "MEMBER_API": False,
        **(
            {"APPS": [{"client_id": ORCID_CLIENT_ID, "secret": ORCID_CLIENT_SECRET, "key": ""}]}
            if ORCID_CLIENT_ID and ORCID_CLIENT_SECRET
            else {}
        ),
    }
}
if bool(ORCID_CLIENT_ID) != bool(ORCID_CLIENT_SECRET):
    raise env.SettingError(
        "ORCID_CLIENT_SECRET" if ORCID_CLIENT_ID else "ORCID_CLIENT_ID",
        "ORCID sign-in needs both ORCID_CLIENT_ID and ORCID_CLIENT_SECRET",
    )

_email = env.email("EMAIL_URL", "consolemail://")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
for _key in ("EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD"):
    if _email.get(_key):
        globals()[_key] = _email[_key]
EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS"))
EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL"))
DEFAULT_FROM_EMAIL = env.string("DEFAULT_FROM_EMAIL", "Scholar Pages <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Importers.
OPENALEX_EMAIL = env.string("OPENALEX_EMAIL")
OPENALEX_API_KEY = env.string("OPENALEX_API_KEY")
# After each import, look up in OpenAlex the institutions it saw that lack a homepage or ROR.
INSTITUTION_LOOKUP = env.boolean("INSTITUTION_LOOKUP", True)
IMPORT_BATCH_SIZE = env.integer("IMPORT_BATCH_SIZE", 1000, minimum=1)
# Files staff upload on the admin's "New import" form are kept here (never served);
# with workers on other machines, this must be storage they share with the web.
IMPORT_UPLOAD_DIR = Path(env.string("IMPORT_UPLOAD_DIR", str(VAR_DIR / "media" / "imports")))
IMPORT_UPLOAD_MAX_BYTES = env.integer("IMPORT_UPLOAD_MAX_BYTES", 200_000_000, minimum=1)
# What reading one recorded file may hold (gzip unpacks to up to 1,000 times its size):
# one line of JSON Lines (a 3,000-author work is a few MB), one document read whole
# (a JSON answer, an Atom feed, a cassette or one of its bodies), and all a file unpacks to.
# Past a limit comes one import problem, and the run goes on with what follows.
IMPORT_MAX_LINE_BYTES = env.integer("IMPORT_MAX_LINE_BYTES", 32 * 1024 * 1024, minimum=1)
IMPORT_MAX_DOCUMENT_BYTES = env.integer("IMPORT_MAX_DOCUMENT_BYTES", 32 * 1024 * 1024, minimum=1)
IMPORT_MAX_DECOMPRESSED_BYTES = env.integer(
    "IMPORT_MAX_DECOMPRESSED_BYTES", 64 * 1024**3, minimum=1
)
# A snapshot file this large (all files of a run together) is written by
# IMPORT_PARTS processes at once, on PostgreSQL (each writes the records whose ids fall to it).
IMPORT_PARTS = env.integer("IMPORT_PARTS", 2, minimum=1)
IMPORT_PARTS_MIN_BYTES = env.integer("IMPORT_PARTS_MIN_BYTES", 32 * 1024 * 1024, minimum=0)
# A running import's worker writes its heartbeat this often; a run whose heartbeat is
# older than IMPORT_STALLED_AFTER is resumed by another worker. Every IMPORT_WATCH_EVERY
# seconds beat looks for such runs and sends the imports that wait for the broker.
IMPORT_HEARTBEAT_EVERY = env.integer("IMPORT_HEARTBEAT_EVERY", 30, minimum=1)
IMPORT_STALLED_AFTER = env.integer("IMPORT_STALLED_AFTER", 300, minimum=1)
IMPORT_WATCH_EVERY = env.integer("IMPORT_WATCH_EVERY", 60, minimum=1)
if IMPORT_STALLED_AFTER <= 2 * IMPORT_HEARTBEAT_EVERY:
    raise env.SettingError("IMPORT_STALLED_AFTER", "must be more than twice IMPORT_HEARTBEAT_EVERY")

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(env.string("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    # JSON only: no browsable HTML pages. A client that accepts no JSON (or asks
    # for ?format=api) is answered 406 in the error shape.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "config.parsers.ContentNegotiation",
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.JSONParser",  # a body nested too deeply is 400, not 500
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 25,
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["config.throttles.AnonThrottle", "config.throttles.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {"anon": "120/min", "user": "600/min"},
    # The throttles key on config.clientip.client_ip; this keeps DRF's own get_ident,
    # wherever it is still called, from believing an X-Forwarded-For nobody vouches for.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": f"{SITE_NAME} API",
    "DESCRIPTION": (
        "Researchers, works, topics and institutions built from OpenAlex and arXiv. "
        "Every error answers with the Error shape: "
        '{"error": {"status", "code", "message", "details"}}.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Authorships and unlinked byline names share the sources' choice set: one enum.
    "ENUM_NAME_OVERRIDES": {"SourceEnum": "catalogue.models.Source"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.api.add_error_responses",
    ],
}

# Security: strict whenever DEBUG is off; each can still be set explicitly.
# X-Forwarded-Proto is believed only from a trusted proxy (TRUSTED_PROXY_COUNT above).
if TRUSTED_PROXY_COUNT:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.boolean("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env.integer("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env.boolean("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env.boolean("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env.boolean("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): scripts, styles and everything else from this
# origin only, no inline script or style, no plugins, no framing. The ORCID sign-in
# form posts here and is redirected to ORCID, which form-action must allow. The API
# docs page widens img-src for Swagger UI's own icons (config/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.SELF],
        "script-src": [csp.SELF],
        "style-src": [csp.SELF],
        "img-src": [csp.SELF],
        "font-src": [csp.SELF],
        "connect-src": [csp.SELF],
        "object-src": [csp.NONE],
        "base-uri": [csp.SELF],
        "frame-ancestors": [csp.NONE],
        "form-action": [csp.SELF, f"https://{ORCID_BASE_DOMAIN}"],
    },
}
SILENCED_SYSTEM_CHECKS = [
    # HSTS preload is a decision for the operator, not a default.
    "security.W021",
]

LOG_LEVEL = env.choice("LOG_LEVEL", "INFO", {"DEBUG", "INFO", "WARNING", "ERROR"})
# text: plain lines; json: one JSON object a line with the request id (config/logs.py).
LOG_FORMAT = env.choice("LOG_FORMAT", "text", {"text", "json"})
LOGGING = logs.logging_config(LOG_FORMAT, LOG_LEVEL)
LOGGING_CONFIG = "config.logs.configure"

# Error reports (config/errors.py): off unless SENTRY_DSN is set.
SENTRY_DSN = env.string("SENTRY_DSN")
errors.init_sentry(
    dsn=SENTRY_DSN,
    environment=env.string("SENTRY_ENVIRONMENT"),
    release=env.string("SENTRY_RELEASE"),
    traces_sample_rate=env.fraction("SENTRY_TRACES_SAMPLE_RATE", 0.0),
)
