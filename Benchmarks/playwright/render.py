"""Playwright for Python doing what `trawl batch --browser always` does with a page, for the
browser benchmark (Benchmarks/browser.sh): open it in a fresh browser context, block images,
fonts, media and style sheets (their URLs are still seen), collect every XHR/fetch JSON payload,
wait for the network to be idle, take the DOM, and find the media in both.

    python render.py --executable /usr/lib/chromium/chromium-headless-shell --map 127.0.0.1:PORT \
        --concurrency 8 URL_LIST

One JSON line per page on stdout, `{"page": URL, "media": [...]}`, and as soon as an XHR payload
names media, `{"xhr": URL, "media": [...]}` (the earliest moment a script could show them).
"""

import argparse
import asyncio
import json
import re
import sys

BLOCKED_TYPES = {"image", "font", "media", "stylesheet"}
MEDIA_URL = re.compile(r"\.(?:gif|mp4|webm|webp|apng|png|jpe?g)(?:[?#]|$)", re.IGNORECASE)
# src / data-src / poster / content attributes in the serialized DOM.
MEDIA_ATTRIBUTE = re.compile(r"""\s(?:src|data-src|poster|content)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)


def media_in_json(value, found):
    if isinstance(value, dict):
        for item in value.values():
            media_in_json(item, found)
    elif isinstance(value, list):
        for item in value:
            media_in_json(item, found)
    elif isinstance(value, str) and MEDIA_URL.search(value):
        found.add(value)


def media_in_html(html, base):
    from urllib.parse import urljoin

    return {urljoin(base, value) for value in MEDIA_ATTRIBUTE.findall(html) if MEDIA_URL.search(value)}


async def render(browser, url, timeout_ms):
    # The same viewport as trawl's tabs (the headless shell's 800×600 window): Playwright's own
    # default, 1280×720, would lay out and paint more of each page than trawl does.
    context = await browser.new_context(viewport={"width": 800, "height": 600})
    try:
        page = await context.new_page()

        async def route(request_route):
            if request_route.request.resource_type in BLOCKED_TYPES:
                await request_route.abort("blockedbyclient")
            else:
                await request_route.continue_()

        await page.route("**/*", route)
        found = set()
        bodies = []

        async def on_response(response):
            if response.request.resource_type not in ("xhr", "fetch"):
                return
            if "json" not in (response.headers.get("content-type") or ""):
                return
            try:
                payload = await response.json()
            except Exception:
                return
            media = set()
            media_in_json(payload, media)
            if media:
                print(json.dumps({"xhr": url, "media": sorted(media)}), flush=True)
            found.update(media)

        page.on("response", lambda response: bodies.append(asyncio.ensure_future(on_response(response))))
        await page.goto(url, wait_until="networkidle", timeout=timeout_ms)
        await asyncio.gather(*bodies, return_exceptions=True)
        html = await page.content()
        found.update(media_in_html(html, page.url))
        return sorted(found)
    finally:
        await context.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("urls", help="a file of URLs, one a line")
    parser.add_argument("--executable", required=True)
    parser.add_argument("--map", help="HOST:PORT every host name resolves to (loopback only)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=15, help="seconds per page")
    options = parser.parse_args()
    with open(options.urls) as handle:
        urls = [line.strip() for line in handle if line.strip()]

    from playwright.async_api import async_playwright

    arguments = []
    if options.map:
        arguments.append(f"--host-resolver-rules=MAP * {options.map}, EXCLUDE localhost")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=options.executable, args=arguments, headless=True)
        queue = asyncio.Queue()
        for url in urls:
            queue.put_nowait(url)
        failures = 0

        async def worker():
            nonlocal failures
            while not queue.empty():
                url = queue.get_nowait()
                try:
                    media = await render(browser, url, int(options.timeout * 1000))
                    print(json.dumps({"page": url, "media": media}), flush=True)
                except Exception as error:  # a page that failed is reported, the run goes on
                    failures += 1
                    print(json.dumps({"page": url, "error": str(error).splitlines()[0]}), flush=True)

        await asyncio.gather(*(worker() for _ in range(options.concurrency)))
        await browser.close()
    if failures:
        print(f"{failures} pages failed", file=sys.stderr)


asyncio.run(main())
