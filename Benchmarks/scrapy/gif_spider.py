"""The same list through Scrapy, for `trawl-bench batch --scrapy PYTHON`.

Fetches every URL of the list (-a urls=FILE) and extracts what Trawl's generic parsers
look at first: og:image / og:video, twitter:image / twitter:player:stream, <video>/<source>
and <img> that point at GIFs. One item per page, like one line per URL from `trawl batch`.
"""
import scrapy


class GifSpider(scrapy.Spider):
    name = "gifs"
    custom_settings = {"HTTPERROR_ALLOW_ALL": True, "RETRY_ENABLED": False, "COOKIES_ENABLED": False}

    def __init__(self, urls, **kwargs):
        super().__init__(**kwargs)
        self.urls_file = urls

    async def start(self):
        # Scrapy >= 2.13 starts from here; older versions call start_requests.
        for request in self.start_requests():
            yield request

    def start_requests(self):
        with open(self.urls_file) as listing:
            for line in listing:
                url = line.strip()
                if url and not url.startswith("#"):
                    yield scrapy.Request(url, callback=self.parse, dont_filter=False)

    def parse(self, response):
        media = []
        if hasattr(response, "xpath"):
            for prop in ("og:image", "og:image:url", "og:video", "og:video:url", "og:video:secure_url"):
                media += response.xpath(f'//meta[@property="{prop}"]/@content').getall()
            for name in ("twitter:image", "twitter:player:stream"):
                media += response.xpath(f'//meta[@name="{name}"]/@content').getall()
            media += response.xpath("//video/@src | //video/source/@src").getall()
            media += [src for src in response.xpath("//img/@src").getall() if ".gif" in src.lower()]
        yield {"input": response.url, "status": response.status, "media": [response.urljoin(u) for u in media]}
