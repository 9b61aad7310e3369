"""Throughput and latency of the public pages behind gunicorn, on a large PostgreSQL corpus.

Builds the corpus once and reuses it on later runs:

1. ``devtools/corpus.py`` writes a synthetic OpenAlex snapshot (var/corpus/pages-N.jsonl);
2. ``import_file`` imports it into its own database (default ``sp_bench_pages_N``),
   with follow-up tasks sent to a Redis database of their own and dropped there;
3. the compute steps that follow an import run for the whole corpus, each when its
   rows are missing (or with ``--recompute``): metrics for every author
   (``author_metrics_refresh``), ``compute_similarities`` ("More like this", prior
   similarity, Novelty; ``--no-similarities`` leaves it out) and ``recompute_trust``.

Then it serves the site as production does (DEBUG off, collected static files,
gunicorn with 2 workers) and measures, side by side in one run, each page's
throughput with wrk (8 connections) and its latency on one connection at a time:
a bare view (/bench/bare/, on with BENCH_BARE_VIEW), the researcher page of the
author whose work count is closest to 500 and a work page, each anonymous and
signed in, and searches (a word found in about a third of the works, also at a
new address each time so that no kept page answers it, a name, two words,
filters). Cold cycles ask a query not asked before on every request (issue 33):
full names and misspelt surnames of different researchers, rare words (in at
most 20 works) and common ones; their latency is printed beside the bare view's.
The API work list is then measured in this process (page 1, a deep page, a
filtered list, a cursor page) beside a bare view, with its queries per request.
Each figure is printed beside its target (issues 21 and 33).

    .venv/bin/python bench/pages_bench.py                    # build if needed, then measure
    .venv/bin/python bench/pages_bench.py --works 1000000 --no-similarities
    .venv/bin/python bench/pages_bench.py --save before.json  # keep the figures
    .venv/bin/python bench/pages_bench.py --before before.json  # print them beside
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Benchmarks run offline: an import looks up no institution in OpenAlex.
os.environ.setdefault("INSTITUTION_LOOKUP", "false")
PYTHON = sys.executable


def sh(*args, env=None, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    if check and result.returncode:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"failed: {' '.join(map(str, args))}")
    return result


def bench_env(args) -> dict:
    env = {**os.environ, "DATABASE_URL": f"{args.server}/{args.database}"}
    env["REDIS_URL"] = args.redis
    # As production runs: DEBUG off (DEBUG also keeps every query in memory).
    env["DEBUG"] = "false"
    env.setdefault("SECRET_KEY", "benchmark-only-key-" + "x" * 40)
    env["ALLOWED_HOSTS"] = "testserver,localhost,127.0.0.1"
    env["BENCH_BARE_VIEW"] = "true"
    env["STATIC_ROOT"] = str(ROOT / "var" / "bench-static")
    env["SECURE_SSL_REDIRECT"] = "false"
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


def database_exists(args) -> bool:
    query = f"SELECT 1 FROM pg_database WHERE datname = '{args.database}'"
    return sh("psql", f"{args.server}/postgres", "-Atc", query).stdout.strip() == "1"


def count_rows(args, table: str) -> int:
    result = sh(
        "psql",
        f"{args.server}/{args.database}",
        "-Atc",
        f"SELECT count(*) FROM {table}",
        check=False,
    )
    return int(result.stdout.strip()) if result.returncode == 0 else 0


def step(label: str, *command, env) -> None:
    started = time.perf_counter()
    print(f"- {label} ...", end="", flush=True)
    sh(*command, env=env)
    print(f" {time.perf_counter() - started:.0f} s", flush=True)


COMPUTE_METRICS = """
from catalogue.metrics import author_metrics_refresh
from catalogue.models import Author
ids = list(Author.objects.visible().order_by("id").values_list("id", flat=True))
for start in range(0, len(ids), 500):
    author_metrics_refresh(author_ids=ids[start:start + 500])
print(len(ids))
"""


def build(args, env) -> None:
    corpus = ROOT / "var" / "corpus" / f"pages-{args.works}.jsonl"
    if not corpus.exists():
        step(
            f"generate {args.works:,} works",
            PYTHON,
            "-m",
            "devtools.corpus",
            "--works",
            str(args.works),
            "--out",
            str(corpus),
            env=env,
        )
    if args.rebuild and database_exists(args):
        sh("psql", f"{args.server}/postgres", "-qc", f"DROP DATABASE {args.database}")
    if not database_exists(args):
        sh("psql", f"{args.server}/postgres", "-qc", f"CREATE DATABASE {args.database}")
    step("migrate", PYTHON, "manage.py", "migrate", "-v0", env=env)
    if count_rows(args, "publications_work") < args.works * 0.99:
        step("import_file", PYTHON, "manage.py", "import_file", str(corpus), env=env)
        # Follow-up tasks went to the benchmark's Redis database; the compute steps below
        # do their work for the whole corpus at once.
        sh("redis-cli", "-u", args.redis, "FLUSHDB", check=False)
        args.recompute = True
    # What the follow-up tasks compute after an import, each run when its rows are missing.
    computes = [
        (
            "metrics for every author",
            "publications_authormetrics",
            ["shell", "-c", COMPUTE_METRICS],
        ),
        ("compute_similarities", "publications_worksimilarity", ["compute_similarities"]),
        ("recompute_trust", "trust_trustscore", ["recompute_trust"]),
    ]
    for label, table, command in computes:
        if args.no_similarities and command == ["compute_similarities"]:
            continue
        if command[0] != "shell" and not list(ROOT.glob(f"*/management/commands/{command[0]}.py")):
            print(f"- {label}: no such command here, skipped")
            continue
        if args.recompute or count_rows(args, table) == 0:
            step(label, PYTHON, "manage.py", *command, env=env)
    # Planner statistics, as autovacuum gathers them some time after a bulk load; without
    # them PostgreSQL guesses row counts and an author's works are read by scanning all works.
    step("analyze", "psql", f"{args.server}/{args.database}", "-qc", "ANALYZE", env=env)


@dataclass
class Page:
    key: str  # stable name, to compare runs (--before)
    label: str
    path: str
    signed_in: bool = False
    ratio: float | None = None  # target: at least this share of the bare view's req/s
    p50_ms: float | None = None  # target: median latency on one connection at most this
    # A new address for every request (an extra parameter the page ignores), so no
    # kept copy of the whole page answers it: latency only, wrk repeats one address.
    fresh: bool = False
    # Queries asked one after another, each new (cold cycles): latency only.
    cycle: list[str] = field(default_factory=list)
    result: dict = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(env: dict, workers: int) -> tuple[subprocess.Popen, str]:
    """gunicorn with production settings (DEBUG off, collected static files)."""
    step("collectstatic", PYTHON, "manage.py", "collectstatic", "--noinput", "-v0", env=env)
    port = free_port()
    command = [
        str(Path(PYTHON).parent / "gunicorn"),
        "config.wsgi",
        "--workers",
        str(workers),
        "--bind",
        f"127.0.0.1:{port}",
        "--log-level",
        "warning",
    ]
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if fetch(base, "/bench/bare/")[0] == 200:
                return server, base
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("gunicorn did not answer")


def fetch(base: str, path: str, cookie: str = "") -> tuple[int, int]:
    """One request on a new connection (as gunicorn's sync workers serve): status, bytes."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = conn.getresponse()
        return response.status, len(response.read())
    finally:
        conn.close()


def latency(base: str, page: Page, cookie: str, runs: int) -> dict:
    """Median and p90 wall time of ``runs`` requests one after another, in ms."""
    stamp = time.time_ns()
    if page.cycle:  # every request a query not asked before
        paths = iter(page.cycle[: runs + 3])
    else:
        paths = (
            f"{page.path}&fresh={stamp}-{i}" if page.fresh else page.path for i in range(runs + 3)
        )
    for _ in range(3):
        status, _ = fetch(base, next(paths), cookie)
    times = []
    for path in paths:
        started = time.perf_counter()
        fetch(base, path, cookie)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "p50": statistics.median(times),
        "p90": times[int(len(times) * 0.9) - 1],
        "status": status,
    }


def throughput(base: str, page: Page, cookie: str, seconds: int, connections: int) -> dict:
    """wrk's requests per second, and how many answers were not 2xx/3xx."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", f"{base}{page.path}"]
    if cookie:
        command[1:1] = ["-H", f"Cookie: {cookie}"]
    out = sh(*command).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {"rps": rps, "errors": int(bad.group(1)) if bad else 0}


def common_word(sample_size: int = 3000) -> tuple[str, float]:
    """A title word found in about a third of the works (title or abstract), and its share."""
    from django.contrib.postgres.search import SearchQuery

    from catalogue.models import Work, WorkSearch

    step = max(Work.objects.count() // sample_size, 1)  # the same works on every run
    ids = Work.objects.order_by("id").values_list("id", flat=True)[::step][:sample_size]
    texts = Work.objects.filter(id__in=ids).values_list("title", "abstract")
    seen: Counter = Counter()
    for title, abstract in texts:
        seen.update(set(re.findall(r"[a-z]{4,}", f"{title} {abstract or ''}".lower())))
    word = min(seen, key=lambda w: abs(seen[w] / sample_size - 1 / 3))
    query = SearchQuery(word, config="english", search_type="websearch")
    share = WorkSearch.objects.filter(search_vector=query).count() / WorkSearch.objects.count()
    return word, share


def pages(args) -> list[Page]:
    """The pages to measure, with their targets."""
    from django.db.models import Count, F, Func

    from catalogue.models import AuthorMetrics, Work

    metrics = (
        AuthorMetrics.objects.filter(works_count__gte=1)
        .annotate(distance=Func(F("works_count") - args.author_works, function="ABS"))
        .order_by("distance", "author_id")
        .select_related("author")
        .first()
    )
    author = metrics.author
    works = Work.objects.visible().filter(authorships__author=author)
    work = works.annotate(n=Count("authorships")).order_by("-n", "id").first()
    word, share = common_word()
    surname = author.display_name.split()[-1]
    page = author.get_absolute_url()
    return [
        Page("researcher", f"researcher page, {metrics.works_count} works", page, ratio=0.3),
        Page("researcher-member", "  signed in", page, signed_in=True, ratio=0.04),
        Page(
            "work",
            f"work page, {work.authorships.count()} authors",
            work.get_absolute_url(),
            ratio=0.3,
        ),
        Page("work-member", "  signed in", work.get_absolute_url(), signed_in=True),
        Page(
            "search-common",
            f"search: {word} ({share:.0%} of works)",
            f"/search/?q={word}",
            p50_ms=50,
        ),
        Page(
            "search-common-fresh",
            "  not kept: a new address each time",
            f"/search/?q={word}",
            p50_ms=50,
            fresh=True,
        ),
        Page("search-name", f"search: a name ({surname})", f"/search/?q={surname}"),
        Page("search-two", "search: two words", f"/search/?q={word}+{surname}"),
        Page(
            "search-filters",
            "search: filtered by year and type",
            f"/search/?q={word}&year_from=2015&type=article",
        ),
        *cold_searches(args.runs + 3),
    ]


def _misspelt(word: str) -> str:
    """``word`` with two of its middle letters swapped, as a hurried typist writes it."""
    if len(word) < 5:
        return word + word[-1]
    middle = len(word) // 2
    return word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :]


def _search_path(query: str) -> str:
    from urllib.parse import urlencode

    return "/search/?" + urlencode({"q": query})


def cold_searches(count: int) -> list[Page]:
    """Search cycles where every request asks a query not asked before (issue 33):
    full names and misspelt surnames of different researchers, rare words (in a
    handful of works) and common ones (in 3-40% of them)."""
    from django.contrib.postgres.search import SearchQuery

    from catalogue.models import Author, WorkSearch

    authors = list(
        Author.objects.visible()
        .filter(metrics__works_count__gte=1)
        .order_by("id")
        .values_list("display_name", flat=True)
    )
    spread = authors[:: max(len(authors) // count, 1)][:count]
    surnames = [name.split()[-1] for name in spread if name.split()]
    total = WorkSearch.objects.count() or 1
    rare, common = [], []
    for word in sorted(_title_words(), key=lambda w: (hash(w) % 997, w)):
        if len(rare) >= count and len(common) >= count:
            break
        text = SearchQuery(word, config="english", search_type="websearch")
        found = WorkSearch.objects.filter(search_vector=text)[: total // 2 + 1].count()
        if 1 <= found <= 20 and len(rare) < count:
            rare.append(word)
        elif 0.03 <= found / total <= 0.4 and len(common) < count:
            common.append(word)
    pairs = [f"{a} {b}" for a, b in zip(common, common[1:] + common[:1], strict=False)]
    return [
        Page(
            "cold-name",
            "search: a full name, new each time",
            "",
            p50_ms=50,
            cycle=[_search_path(n) for n in spread],
        ),
        Page(
            "cold-name-typo",
            "search: a misspelt surname, new each time",
            "",
            p50_ms=50,
            cycle=[_search_path(_misspelt(n)) for n in surnames],
        ),
        Page(
            "cold-rare",
            f"search: a rare word, new each time ({len(rare)})",
            "",
            p50_ms=50,
            cycle=[_search_path(w) for w in rare],
        ),
        Page(
            "cold-common",
            f"search: common words, new each time ({len(common + pairs)})",
            "",
            p50_ms=50,
            cycle=[_search_path(q) for q in (common + pairs)],
        ),
    ]


def _title_words(sample_size: int = 4000) -> set[str]:
    """Words of the titles of a fixed sample of works (the same on every run)."""
    from catalogue.models import Work

    step = max(Work.objects.count() // sample_size, 1)
    ids = Work.objects.order_by("id").values_list("id", flat=True)[::step][:sample_size]
    words: set[str] = set()
    for title in Work.objects.filter(id__in=ids).values_list("title", flat=True):
        words.update(re.findall(r"[a-z]{5,}", title.lower()))
    return words


def api_in_process(runs: int) -> list[dict]:
    """The API work list served in this process (no HTTP), beside a bare view: p50 and
    queries per request, page-number and cursor pagination, unfiltered and filtered."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from config.throttles import AnonThrottle, UserThrottle

    # The figure is the list's own cost: the per-client limit (120 a minute) stays out.
    AnonThrottle.allow_request = UserThrottle.allow_request = lambda *args: True
    client = Client()
    first = client.get("/api/v1/works/?cursor=*")
    after = first.json().get("next_cursor") if first.status_code == 200 else None
    cases = [
        ("api-bare", "bare view (in process)", "/bench/bare/", None),
        ("api-list", "API work list, page 1", "/api/v1/works/", 20),
        ("api-list-deep", "  page 50", "/api/v1/works/?page=50", 20),
        ("api-list-cited", "  most cited, 2020 on", "/api/v1/works/?sort=cited&year_from=2020", 20),
    ]
    if after:
        cases += [("api-cursor", "  by cursor, 2nd page", f"/api/v1/works/?cursor={after}", 20)]
    figures = []
    for key, label, path, target in cases:
        times = []
        for _ in range(runs + 3):
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(path)
                times.append((time.perf_counter() - started) * 1000)
        times = sorted(times[3:])
        figures.append(
            {
                "key": key,
                "label": label,
                "p50": statistics.median(times),
                "p90": times[int(len(times) * 0.9) - 1],
                "status": response.status_code,
                "queries": len(queries),
                "target": target,
            }
        )
    return figures


def member_cookie() -> str:
    """The session cookie of a signed-in member (created in the benchmark database)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(username="bench-member")
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def verdict(page: Page, bare_rps: float, before: dict, bare_p50: float = 0.0) -> str:
    result, notes = page.result, []
    ratio = result["rps"] / bare_rps
    if page.ratio is not None:
        notes.append(f"≥ {page.ratio:.2f}× bare: {'ok' if ratio >= page.ratio else 'MISSED'}")
    if page.p50_ms is not None:
        ok = result["p50"] <= page.p50_ms
        notes.append(f"p50 ≤ {page.p50_ms} ms: {'ok' if ok else 'MISSED'}")
    if page.cycle:
        notes.append(f"{len(page.cycle)} queries, bare p50 {bare_p50:.1f} ms")
    if page.key in before:
        old = before[page.key]
        share = f", {old['rps'] / old['bare']:.3f}× bare" if "bare" in old else ""
        notes.append(f"before: p50 {old['p50']:.1f} ms, {old['rps']:.0f}/s{share}")
    if result["status"] != 200 or result["errors"]:
        notes.append(f"HTTP {result['status']}, {result['errors']} non-2xx under load")
    return "; ".join(notes)


def measure(args, env: dict) -> None:
    """Each page's throughput beside the bare view's, measured just before it."""
    from catalogue.models import Work

    todo = pages(args)
    cookie = member_cookie()
    server, base = serve(env, args.workers)
    bare = Page("bare", "bare view (/bench/bare/)", "/bench/bare/")
    try:
        bare.result = latency(base, bare, "", args.runs)
        for page in todo:
            page_cookie = cookie if page.signed_in else ""
            page.result = latency(base, page, page_cookie, args.runs)
            if page.fresh or page.cycle:
                page.result |= {"rps": float("nan"), "bare": float("nan"), "errors": 0}
                continue
            page.result["bare"] = throughput(base, bare, "", args.seconds, args.connections)["rps"]
            page.result |= throughput(base, page, page_cookie, args.seconds, args.connections)
    finally:
        server.terminate()
        server.wait()
    api = api_in_process(args.runs)
    report(args, Work.objects.count(), bare, todo, api)


def report(args, works: int, bare: Page, todo: list[Page], api: list[dict]) -> None:
    before = json.loads(Path(args.before).read_text()) if args.before else {}
    print(
        f"\n{works:,} works in {args.database}; gunicorn, {args.workers} workers; wrk "
        f"{args.connections} connections {args.seconds} s, the bare view just before each "
        f"page; latency: {args.runs} requests on one connection at a time."
    )
    print(f"bare view latency: p50 {bare.result['p50']:.1f} ms, p90 {bare.result['p90']:.1f} ms")
    print(f"{'page':<38} {'req/s':>6} {'bare':>6} {'×bare':>6} {'p50 ms':>7} {'p90 ms':>7}  target")
    for page in todo:
        r = page.result
        print(
            f"{page.label[:38]:<38} {r['rps']:>6.0f} {r['bare']:>6.0f} "
            f"{r['rps'] / r['bare']:>6.3f} {r['p50']:>7.1f} {r['p90']:>7.1f}  "
            f"{verdict(page, r['bare'], before, bare.result['p50'])}"
        )
    print(f"\nin process (Django test client), {args.runs} requests each after 3 unmeasured:")
    print(f"{'request':<38} {'p50 ms':>7} {'p90 ms':>7} {'queries':>7}  target")
    for row in api:
        notes = []
        if row["target"] is not None:
            ok = row["p50"] <= row["target"]
            notes.append(f"p50 ≤ {row['target']} ms: {'ok' if ok else 'MISSED'}")
        if row["key"] in before:
            notes.append(f"before: p50 {before[row['key']]['p50']:.1f} ms")
        if row["status"] != 200:
            notes.append(f"HTTP {row['status']}")
        print(
            f"{row['label'][:38]:<38} {row['p50']:>7.1f} {row['p90']:>7.1f} "
            f"{row['queries']:>7}  {'; '.join(notes)}"
        )
    if args.save:
        figures = {p.key: {k: p.result[k] for k in ("rps", "bare", "p50")} for p in todo}
        figures |= {row["key"]: {"p50": row["p50"], "queries": row["queries"]} for row in api}
        Path(args.save).write_text(json.dumps(figures, indent=1))
    load = os.getloadavg()
    print(f"\nload: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--works", type=int, default=100_000, help="corpus size (100,000)")
    parser.add_argument("--author-works", type=int, default=500, help="researcher page size")
    parser.add_argument("--runs", type=int, default=30, help="latency requests per page (30)")
    parser.add_argument("--seconds", type=int, default=10, help="wrk run per page (10 s)")
    parser.add_argument("--connections", type=int, default=8, help="wrk connections (8)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default=None, help="default sp_bench_pages_<works>")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/2")
    parser.add_argument("--rebuild", action="store_true", help="drop and rebuild the database")
    parser.add_argument("--recompute", action="store_true", help="run the compute steps again")
    parser.add_argument("--skip-build", action="store_true", help="measure the database as is")
    parser.add_argument(
        "--no-similarities",
        action="store_true",
        help="leave out compute_similarities (quadratic before issue 21)",
    )
    parser.add_argument("--build-only", action="store_true", help="build, do not measure")
    parser.add_argument("--save", help="write the figures to this JSON file")
    parser.add_argument("--before", help="print a saved run's figures beside these")
    args = parser.parse_args()
    args.database = args.database or f"sp_bench_pages_{args.works}"

    env = bench_env(args)
    if not args.skip_build:
        build(args, env)
    if args.build_only:
        return
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    measure(args, env)


if __name__ == "__main__":
    main()
