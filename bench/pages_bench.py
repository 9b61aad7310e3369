"""Throughput and latency of the public pages behind gunicorn, on a large PostgreSQL corpus.

Builds the corpus once and reuses it on later runs:

1. ``devtools/corpus.py`` writes a synthetic OpenAlex snapshot (var/corpus/pages-N.jsonl);
2. ``import_file`` imports it into its own database (default ``sp_bench_pages_N``),
   with follow-up tasks sent to a Redis database of their own and dropped there;
3. the compute steps that follow an import run for the whole corpus, each when its
   rows are missing (or with ``--recompute``): metrics for every author
   (``author_metrics_refresh``), ``compute_similarities`` ("More like this", prior
   similarity, Novelty; ``--no-similarities`` leaves it out),
   ``recompute_trust`` and ``draw_entries`` (the kept list entries).

Then it serves the site as production does (DEBUG off, collected static files,
gunicorn with 2 workers) and measures, side by side in one run, each page's
throughput with wrk (8 connections; without wrk, with the load generator below)
and its latency on one connection at a time: a bare view (/bench/bare/, on with
BENCH_BARE_VIEW), the researcher page of the author whose work count is closest
to 500 and a work page, each anonymous and signed in, and searches (a word found
in about a third of the works, also at a new address each time so that no kept
page answers it, a name, two words, filters). Cold cycles ask a query not asked
before on every request (issue 33): full names and misspelt surnames of
different researchers, rare words (in at most 20 works) and common ones; their
latency is printed beside the bare view's.

Cold record cycles ask a record not asked before in the run on every request:
1,000 researcher pages (authors with at least 3 works, spread over work counts)
anonymous, 1,000 more signed in, 1,000 work pages and 1,000 API work and author
details. Each starts with the benchmark's Redis database (``--redis``, where the
site keeps its cache) emptied. Their throughput comes from a small load
generator in this script (new connections, each request from a visitor address
of its own, so the API's per-client limits count visitors), the bare view
measured the same way just before. The cold researcher and work pages are also
served in this process, with their queries per request, and so is the API work
list (page 1, a deep page, a filtered list, a cursor page), beside a bare view.
Each figure is printed beside its target (issues 21 and 33).

    .venv/bin/python bench/pages_bench.py                    # build if needed, then measure
    .venv/bin/python bench/pages_bench.py --works 1000000 --no-similarities
    .venv/bin/python bench/pages_bench.py --save before.json  # keep the figures
    .venv/bin/python bench/pages_bench.py --before before.json  # print them beside
    .venv/bin/python bench/pages_bench.py --only cold-api,api-list  # only these figures
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
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
    # The load generator's requests come as from many visitors (X-Forwarded-For), as
    # behind a proxy: the API's per-client limits (120 a minute) count each visitor.
    env["TRUSTED_PROXY_COUNT"] = "1"
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


def step_parallel(label: str, commands: list[list[str]], *, env) -> None:
    """``commands`` run at once, as one step."""
    started = time.perf_counter()
    print(f"- {label} ({len(commands)} processes) ...", end="", flush=True)
    running = [subprocess.Popen(command, cwd=ROOT, env=env) for command in commands]
    failed = [command for command, done in zip(commands, running, strict=True) if done.wait()]
    if failed:
        raise SystemExit(f"failed: {' '.join(map(str, failed[0]))}")
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
        # The list entries an import's follow-up tasks draw (pages.entries).
        ("draw_entries", "pages_workentry", ["draw_entries"]),
    ]
    # Kept pages name the collected static files (their hashed names): collect first.
    step("collectstatic", PYTHON, "manage.py", "collectstatic", "--noinput", "-v0", env=env)
    for label, table, command in computes:
        if args.no_similarities and command == ["compute_similarities"]:
            continue
        if command[0] != "shell" and not list(ROOT.glob(f"*/management/commands/{command[0]}.py")):
            print(f"- {label}: no such command here, skipped")
            continue
        if not (args.recompute or count_rows(args, table) == 0):
            continue
        if command == ["draw_entries"]:  # shared between processes, one a core
            parts = os.cpu_count() or 1
            draws = [[*command, "--part", f"{n}/{parts}"] for n in range(1, parts + 1)]
            step_parallel(label, [[PYTHON, "manage.py", *draw] for draw in draws], env=env)
        else:
            step(label, PYTHON, "manage.py", *command, env=env)
    # What autovacuum leaves some time after a bulk load: planner statistics (without them
    # PostgreSQL guesses row counts and an author's works are read by scanning all works)
    # and the visibility map (without it an index-only scan still reads every row's page).
    # Done here because a server may run with autovacuum off.
    step("vacuum", "psql", f"{args.server}/{args.database}", "-qc", "VACUUM (ANALYZE)", env=env)


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
    # Addresses asked one after another, each new (cold cycles): latency only for
    # searches; record cycles (with a ratio target) also under load (``measure_page``).
    cycle: list[str] = field(default_factory=list)
    in_process: float | None = None  # target: p50 in this process, cold (ms)
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


def fetch(base: str, path: str, cookie: str = "", visitor: bool = False) -> tuple[int, int]:
    """One request on a new connection (as gunicorn's sync workers serve): status, bytes.
    With ``visitor``, from a visitor address not seen before (``_visitor``)."""
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Cookie": cookie} if cookie else {}
    if visitor:
        headers["X-Forwarded-For"] = _visitor()
    try:
        conn.request("GET", path, headers=headers)
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
    visitor = bool(page.cycle)
    for _ in range(3):
        status, _ = fetch(base, next(paths), cookie, visitor)
    times = []
    for path in paths:
        started = time.perf_counter()
        fetch(base, path, cookie, visitor)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "p50": statistics.median(times),
        "p90": times[int(len(times) * 0.9) - 1],
        "status": status,
    }


def throughput(base: str, page: Page, cookie: str, seconds: int, connections: int) -> dict:
    """wrk's requests per second, and how many answers were not 2xx/3xx (without wrk,
    the load generator's: answers other than 200)."""
    if not shutil.which("wrk"):
        return load(base, itertools.repeat(page.path), seconds, connections, cookie)
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", f"{base}{page.path}"]
    if cookie:
        command[1:1] = ["-H", f"Cookie: {cookie}"]
    out = sh(*command).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {"rps": rps, "errors": int(bad.group(1)) if bad else 0}


_VISITORS = itertools.count(1)
_VISITOR_LOCK = threading.Lock()


def _visitor() -> str:
    """A client address not used before in this run (10.0.0.1, 10.0.0.2, ...)."""
    with _VISITOR_LOCK:
        n = next(_VISITORS)
    return f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


def _get(address: tuple[str, int], path: str, cookie: str) -> int:
    """The status of one GET on a new connection, read to its end (0: no answer)."""
    lines = [f"GET {path} HTTP/1.1", f"Host: {address[0]}:{address[1]}", "Connection: close"]
    lines.append(f"X-Forwarded-For: {_visitor()}")
    if cookie:
        lines.append(f"Cookie: {cookie}")
    head = b""
    try:
        with socket.create_connection(address, timeout=30) as sock:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            while chunk := sock.recv(65536):
                head = head if len(head) >= 12 else head + chunk
    except OSError:
        return 0
    return int(head[9:12]) if head[:5] == b"HTTP/" and head[9:12].isdigit() else 0


def load(base: str, paths, seconds: int, connections: int, cookie: str = "") -> dict:
    """Requests per second of ``connections`` clients, each asking the next address of
    ``paths`` on a new connection once its last answer came, for ``seconds`` or until
    ``paths`` runs out: 200 answers completed in that time, the others as errors, and
    how many addresses were taken. Each request comes from a visitor of its own."""
    host, port = base.removeprefix("http://").split(":")
    address, todo, lock = (host, int(port)), iter(paths), threading.Lock()
    tally = {"ok": 0, "errors": 0, "asked": 0, "last": 0.0, "out": False}
    started = time.perf_counter()
    deadline = started + seconds

    def client() -> None:
        while time.perf_counter() < deadline:
            with lock:
                path = next(todo, None)
                tally["asked"] += path is not None
                tally["out"] |= path is None
            if path is None:
                return
            status = _get(address, path, cookie)
            done = time.perf_counter()
            if done > deadline:
                return
            with lock:
                tally["ok" if status == 200 else "errors"] += 1
                tally["last"] = max(tally["last"], done)

    threads = [threading.Thread(target=client) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = tally["last"] - started if tally["out"] else seconds
    rps = tally["ok"] / elapsed if elapsed > 0 else 0.0
    return {"rps": rps, "errors": tally["errors"], "asked": tally["asked"]}


def flush_cache(redis_url: str) -> None:
    """Empty the benchmark's Redis database, where the site keeps its cache (REDIS_URL):
    no page, version or limit is kept when a cold cycle starts."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        client.flushdb()
    finally:
        client.close()


def _parts(cycle: list[str], runs: int) -> tuple[list[str], list[str], list[str]]:
    """A record cycle's addresses for latency (first), load (middle) and in process (last)."""
    return cycle[: runs + 3], cycle[runs + 3 : -(runs + 3)], cycle[-(runs + 3) :]


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
        *record_cycles(args.records),
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


def _spread(ids: list[int], count: int) -> list[int]:
    """``count`` of ``ids`` at even steps over the whole list, first and last included."""
    if len(ids) <= count:
        return list(ids)
    return [ids[i * (len(ids) - 1) // (count - 1)] for i in range(count)]


def _dealt(ids: list[int], hands: int) -> list[list[int]]:
    """``ids`` dealt into ``hands`` lists of different records, each in a fixed mixed order
    (so any first part of a list is spread as the whole list is)."""
    dealt = [ids[i::hands] for i in range(hands)]
    for hand in dealt:
        random.Random(33).shuffle(hand)
    return dealt


def record_cycles(count: int = 1000) -> list[Page]:
    """Record cycles (issue 33): ``count`` researcher pages anonymous, as many signed in,
    work pages and API work and author details, a record not asked before on every
    request of the run. Researchers have at least 3 works, spread over work counts."""
    from catalogue.models import Author, AuthorMetrics, Work

    ranked = (
        AuthorMetrics.objects.filter(works_count__gte=3, author__in=Author.objects.visible())
        .order_by("works_count", "author_id")
        .values_list("author_id", flat=True)
    )
    pages_of, members_of, api_of = _dealt(_spread(list(ranked), 3 * count), 3)
    authors = Author.objects.in_bulk(pages_of + members_of)
    works_ids = list(Work.objects.visible().order_by("id").values_list("id", flat=True))
    work_pages, api_works = _dealt(_spread(works_ids, 2 * count), 2)
    works = Work.objects.in_bulk(work_pages)
    return [
        Page(
            "cold-researcher",
            f"researcher pages, cold ({len(pages_of)})",
            "",
            ratio=0.15,
            cycle=[authors[pk].get_absolute_url() for pk in pages_of],
            in_process=20,
        ),
        Page(
            "cold-researcher-member",
            "  signed in, cold",
            "",
            signed_in=True,
            ratio=0.1,
            cycle=[authors[pk].get_absolute_url() for pk in members_of],
        ),
        Page(
            "cold-work",
            f"work pages, cold ({len(work_pages)})",
            "",
            ratio=0.2,
            cycle=[works[pk].get_absolute_url() for pk in work_pages],
            in_process=12,
        ),
        Page(
            "cold-api-work",
            f"API work details, cold ({len(api_works)})",
            "",
            ratio=0.2,
            cycle=[f"/api/v1/works/{pk}/" for pk in api_works],
        ),
        Page(
            "cold-api-author",
            f"API author details, cold ({len(api_of)})",
            "",
            ratio=0.2,
            cycle=[f"/api/v1/authors/{pk}/" for pk in api_of],
        ),
    ]


def chosen(key: str, only: list[str] | None) -> bool:
    """Whether the figure ``key`` is measured: every one, or those ``--only`` names."""
    return not only or any(key.startswith(prefix) for prefix in only)


def api_in_process(runs: int, only: list[str] | None = None) -> list[dict]:
    """The API work list served in this process (no HTTP), beside a bare view: p50 and
    queries per request, page-number and cursor pagination, unfiltered and filtered."""
    if not any(chosen(key, only) for key in ("api-list", "api-cursor")):
        return []
    from django.test import Client

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
    return [
        timed(client, key, label, [path] * (runs + 3), target)
        for key, label, path, target in cases
        if key == "api-bare" or chosen(key, only)
    ]


def cold_in_process(args, todo: list[Page]) -> list[dict]:
    """The cold record pages with an in-process target, served in this process after the
    cache is emptied, each request for a record the run has not asked before."""
    from django.test import Client

    rows = []
    for page in todo:
        if page.in_process is None:
            continue
        flush_cache(args.redis)
        paths = _parts(page.cycle, args.runs)[2]
        label = f"{page.label.split(' (')[0]} ({len(paths) - 3})"
        rows.append(timed(Client(), f"{page.key}-in-process", label, paths, page.in_process))
    return rows


def timed(client, key: str, label: str, paths: list[str], target: float | None) -> dict:
    """p50 and p90 (ms) of requests to ``paths`` after the first 3, one after another in
    this process without cookies, and the median count of queries per request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times, counts, statuses = [], [], []
    for path in paths:
        client.cookies.clear()  # anonymous, as a first visit: no cookie a page set
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - started) * 1000)
        counts.append(len(queries))
        statuses.append(response.status_code)
    times = sorted(times[3:])
    return {
        "key": key,
        "label": label,
        "p50": statistics.median(times),
        "p90": times[int(len(times) * 0.9) - 1],
        "status": next((status for status in statuses if status != 200), 200),
        "queries": statistics.median(counts[3:]),
        "target": target,
    }


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
    if page.cycle and page.ratio is not None:
        notes.append(f"{result['asked']} of {len(page.cycle)} records under load")
    elif page.cycle:
        notes.append(f"{len(page.cycle)} queries, bare p50 {bare_p50:.1f} ms")
    if page.key in before:
        old = before[page.key]
        share = f", {old['rps'] / old['bare']:.3f}× bare" if "bare" in old else ""
        notes.append(f"before: p50 {old['p50']:.1f} ms, {old['rps']:.0f}/s{share}")
    if result["status"] != 200 or result["errors"]:
        notes.append(f"HTTP {result['status']}, {result['errors']} failed under load")
    return "; ".join(notes)


def measure(args, env: dict) -> None:
    """Each page's throughput beside the bare view's, measured just before it."""
    from catalogue.models import Work

    todo = [page for page in pages(args) if chosen(page.key, args.only)]
    cookie = member_cookie()
    server, base = serve(env, args.workers)
    bare = Page("bare", "bare view (/bench/bare/)", "/bench/bare/")
    try:
        bare.result = latency(base, bare, "", args.runs)
        for page in todo:
            measure_page(args, base, page, cookie if page.signed_in else "", bare)
    finally:
        server.terminate()
        server.wait()
    cold = cold_in_process(args, todo)
    api = api_in_process(args.runs, args.only)
    report(args, Work.objects.count(), bare, todo, api[:1] + cold + api[1:])


def measure_page(args, base: str, page: Page, cookie: str, bare: Page) -> None:
    """A page's latency and, unless latency only, its throughput beside the bare view's,
    measured just before it with the same tool. A cold cycle starts with an empty cache
    (before its latency run and again before its load run)."""
    if page.cycle:
        flush_cache(args.redis)
    page.result = latency(base, page, cookie, args.runs)
    if page.fresh or (page.cycle and page.ratio is None):
        page.result |= {"rps": float("nan"), "bare": float("nan"), "errors": 0}
        return
    if not page.cycle:
        page.result["bare"] = throughput(base, bare, "", args.seconds, args.connections)["rps"]
        page.result |= throughput(base, page, cookie, args.seconds, args.connections)
        return
    steady = itertools.repeat(bare.path)
    page.result["bare"] = load(base, steady, args.seconds, args.connections)["rps"]
    flush_cache(args.redis)
    cycle = _parts(page.cycle, args.runs)[1]
    page.result |= load(base, cycle, args.seconds, args.connections, cookie)


def report(args, works: int, bare: Page, todo: list[Page], api: list[dict]) -> None:
    before = json.loads(Path(args.before).read_text()) if args.before else {}
    tool = "wrk (cold records: the load generator)" if shutil.which("wrk") else "load generator"
    print(
        f"\n{works:,} works in {args.database}; gunicorn, {args.workers} workers; {tool}, "
        f"{args.connections} connections {args.seconds} s, "
        f"the bare view just before each page the same way; latency: {args.runs} requests on "
        "one connection at a time; each cold cycle after the cache is emptied."
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
            f"{row['queries']:>7g}  {'; '.join(notes)}"
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
    parser.add_argument("--seconds", type=int, default=10, help="load run per page (10 s)")
    parser.add_argument("--connections", type=int, default=8, help="load connections (8)")
    parser.add_argument(
        "--records", type=int, default=1000, help="records per cold record cycle (1,000)"
    )
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (2)")
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--database", default=None, help="default sp_bench_pages_<works>")
    parser.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379/2",
        help="the site's Redis database (cache and broker), emptied before each cold cycle",
    )
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
    parser.add_argument(
        "--only",
        type=lambda value: [part for part in value.split(",") if part],
        help="measure only the figures whose key starts with one of these, comma-separated "
        "(cold-api: the cold API details; api-list: the in-process work list)",
    )
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
