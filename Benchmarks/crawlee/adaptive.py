"""Crawlee for Python's AdaptivePlaywrightCrawler (with its Parsel static parser) over a URL list,
for the browser benchmark's mixed list (Benchmarks/browser.sh). It decides per page whether plain
HTTP is enough or Playwright must render, as its documentation shows; in browser mode the handler
waits for the network to be idle before reading the DOM, so a script's media are there.

    python adaptive.py --executable /usr/lib/chromium/chromium-headless-shell --map 127.0.0.1:PORT URL_LIST

One JSON line per page on stdout at the end, `{"page": URL, "media": [...], "browser": bool}`.
"""

import argparse
import asyncio
import json
import logging
from urllib.parse import urljoin

MEDIA_SELECTOR = "img::attr(src), video::attr(src), video::attr(poster), source::attr(src), meta[property^='og:image']::attr(content), meta[property^='og:video']::attr(content)"


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("urls", help="a file of URLs, one a line")
    parser.add_argument("--executable", required=True)
    parser.add_argument("--map", help="HOST:PORT every host name resolves to in the browser (loopback only)")
    parser.add_argument("--concurrency", type=int, default=16)
    options = parser.parse_args()
    with open(options.urls) as handle:
        urls = [line.strip() for line in handle if line.strip()]

    from crawlee import ConcurrencySettings
    from crawlee.crawlers import AdaptivePlaywrightCrawler, AdaptivePlaywrightCrawlingContext
    from crawlee.crawlers._adaptive_playwright._adaptive_playwright_crawling_context import AdaptiveContextError
    from crawlee.storage_clients import MemoryStorageClient

    # As root Chromium needs --no-sandbox (Crawlee launches a persistent context without it).
    arguments = ["--no-sandbox"] + ([f"--host-resolver-rules=MAP * {options.map}, EXCLUDE localhost"] if options.map else [])
    crawler = AdaptivePlaywrightCrawler.with_parsel_static_parser(
        storage_client=MemoryStorageClient(),
        max_request_retries=1,
        concurrency_settings=ConcurrencySettings(
            min_concurrency=options.concurrency, desired_concurrency=options.concurrency, max_concurrency=options.concurrency
        ),
        playwright_crawler_specific_kwargs={
            "browser_type": "chromium",
            "headless": True,
            "browser_launch_options": {"executable_path": options.executable, "args": arguments},
        },
        configure_logging=False,
    )
    @crawler.router.default_handler
    async def handler(context: AdaptivePlaywrightCrawlingContext) -> None:
        rendered = True
        try:
            await context.page.wait_for_load_state("networkidle")
        except AdaptiveContextError:
            rendered = False
        selector = await context.parse_with_static_parser()
        url = context.request.loaded_url or context.request.url
        media = sorted({urljoin(url, value) for value in selector.css(MEDIA_SELECTOR).getall()})
        # Only the run the crawler keeps (static or browser) commits its pushed data.
        await context.push_data({"page": context.request.url, "media": media, "browser": rendered})

    logging.getLogger("crawlee").setLevel(logging.ERROR)
    await crawler.run(urls)
    data = await crawler.get_data(limit=len(urls) * 2)
    results = {item["page"]: item for item in data.items}
    for url in urls:
        print(json.dumps(results.get(url, {"page": url, "error": "not crawled"})))


asyncio.run(main())
