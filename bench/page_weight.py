"""Page weight as a browser sees it: bytes transferred, requests, render-blocking resources.

Loads each page in Chromium (Playwright, the system browser) with an empty cache
and counts, from the DevTools protocol, every request the page made and the bytes
that crossed the wire (compressed size where the server compressed), and, from the
Resource Timing API, the resources that blocked the first render. Point it at a
running site, ideally a production-like one (DEBUG off, after collectstatic):

    export DEBUG=false SECRET_KEY=x ALLOWED_HOSTS=127.0.0.1
    .venv/bin/python manage.py collectstatic --noinput
    .venv/bin/gunicorn config.wsgi -b 127.0.0.1:8001
    .venv/bin/python bench/page_weight.py http://127.0.0.1:8001
    .venv/bin/python bench/page_weight.py http://127.0.0.1:8001 / /search/?q=gpu --json

Without paths it measures the home page, the first researcher and work the home page
links to, a search and the sign-in page.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from urllib.parse import urljoin

from playwright.sync_api import sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BLOCKING = """() => performance.getEntriesByType("resource")
    .filter((e) => e.renderBlockingStatus === "blocking").map((e) => e.name)"""


def default_paths(page, base: str) -> list[str]:
    page.goto(base + "/")
    links = page.eval_on_selector_all("main a[href]", "els => els.map(e => e.getAttribute('href'))")
    first = {
        kind: next((href for href in links if re.match(rf"^/{kind}/\d+[-/]", href)), None)
        for kind in ("researchers", "works")
    }
    paths = ["/", first["researchers"], first["works"], "/search/?q=gpu", "/accounts/login/"]
    return [path for path in paths if path]


def measure(context, url: str) -> dict:
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    sizes: dict[str, float] = {}
    urls: dict[str, str] = {}
    cdp.on(
        "Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"])
    )
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]),
    )
    response = page.goto(url, wait_until="networkidle")
    blocking = page.evaluate(BLOCKING)
    page.wait_for_timeout(300)  # a favicon is asked for after load
    html = next((sizes[r] for r, u in urls.items() if u == url and r in sizes), 0)
    result = {
        "url": url,
        "status": response.status if response else None,
        "html_encoding": (response.headers.get("content-encoding") if response else None) or "none",
        "html_bytes": int(html),
        "requests": len(urls),
        "bytes": int(sum(sizes.values())),
        "render_blocking": len(blocking),
        "render_blocking_urls": blocking,
        "favicon_requests": sum("favicon" in u for u in urls.values()),
    }
    page.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the site's address, e.g. http://127.0.0.1:8001")
    parser.add_argument("paths", nargs="*", help="paths to load (default: a tour of the site)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    base = args.base.rstrip("/")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        paths = args.paths or default_paths(context.new_page(), base)
        results = [measure(context, urljoin(base + "/", path.lstrip("/"))) for path in paths]
        browser.close()
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()
        return 0
    columns = ("status", "html_bytes", "html_encoding", "bytes", "requests", "render_blocking")
    columns += ("favicon_requests",)
    print(f"{'page':40} " + " ".join(f"{c[:10]:>10}" for c in columns))
    for r in results:
        path = r["url"][len(base) :] or "/"
        print(f"{path[:40]:40} " + " ".join(f"{str(r[c])[:10]:>10}" for c in columns))
    totals = {c: sum(r[c] for r in results) for c in ("bytes", "requests", "render_blocking")}
    print("total: " + ", ".join(f"{c} {v}" for c, v in totals.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
