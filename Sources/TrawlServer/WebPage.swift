import HTTPTypes
import Hummingbird

/// `GET /` (also `/?q=…`, which reproduces a search): the page where a person pastes a URL or
/// types a search and watches the grid fill as result sets stream in. Plain HTML, CSS and
/// JavaScript compiled into the binary: no build step, no files to install, nothing fetched
/// from elsewhere.
///
/// The page searches as its user types through a search session (`/v1/sessions`: the server
/// debounces, cancels superseded searches and guards "load more") and adds each result set's
/// media as the session's events bring them: a still first (animation on hover, or while the
/// tile is in view), a `degraded` badge when a fallback parser found it, "Load more", and the
/// API's error message when there is one. With `--token`, a 401 makes it ask for the token
/// (kept for the tab's session only).
enum WebPage {
    static func add(to router: some RouterMethods<ServerRequestContext>) {
        let body = ByteBuffer(string: html)
        router.get("/") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8",
                    .cacheControl: "no-cache",
                    // Everything is inline; media come from wherever the results say.
                    .contentSecurityPolicy:
                        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src * data:; media-src *; connect-src 'self'; base-uri 'none'; form-action 'self'",
                    .xContentTypeOptions: "nosniff",
                    HTTPField.Name("Referrer-Policy")!: "no-referrer",
                ],
                body: ResponseBody(byteBuffer: body))
        }
    }

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Trawl</title>
        <style>
          :root { color-scheme: light dark; --gap: 10px; --accent: #2a7ae2; }
          body { font: 15px/1.4 system-ui, sans-serif; margin: 0; padding: 16px; }
          header { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 14px; }
          h1 { font-size: 20px; margin: 0; }
          form { display: flex; flex: 1; gap: 8px; min-width: 280px; }
          input[type=search] { flex: 1; font: inherit; padding: 8px 10px; border: 1px solid #8888; border-radius: 6px; }
          button { font: inherit; padding: 8px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
          button[disabled] { opacity: .5; cursor: default; }
          #status { color: #888; min-height: 1.4em; margin: 6px 0; }
          #error { display: none; border: 1px solid #d33; color: #d33; border-radius: 6px; padding: 8px 10px; margin: 8px 0; }
          #error.shown { display: block; }
          #grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: var(--gap); }
          .tile { position: relative; margin: 0; background: #8882; border-radius: 6px; overflow: hidden; aspect-ratio: var(--ratio, 1); }
          .tile img, .tile video { width: 100%; height: 100%; object-fit: cover; display: block; }
          .tile figcaption { position: absolute; left: 0; right: 0; bottom: 0; padding: 4px 6px; font-size: 12px; color: #fff; background: linear-gradient(transparent, #000a); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
          .tile a { color: inherit; }
          .badge { position: absolute; top: 6px; left: 6px; font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #e8a317; color: #000; }
          .kind { position: absolute; top: 6px; right: 6px; font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #0008; color: #fff; }
          #more { display: none; margin: 14px auto; }
          #more.shown { display: block; }
        </style>
        </head>
        <body>
        <header>
          <h1>Trawl</h1>
          <form id="search" role="search">
            <input id="q" name="q" type="search" placeholder="Paste a page URL, or search: !giphy cats" autocomplete="off" autofocus>
            <button id="go" type="submit">Find GIFs</button>
          </form>
        </header>
        <div id="status" aria-live="polite"></div>
        <div id="error" role="alert"></div>
        <main id="grid" data-state="idle"></main>
        <button id="more" type="button">Load more</button>
        <script>
        "use strict";
        (() => {
          const $ = (id) => document.getElementById(id);
          const grid = $("grid"), status = $("status"), errorBox = $("error"), more = $("more"), input = $("q");
          let seen = new Set(), count = 0;

          const viewer = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
            for (const entry of entries) animate(entry.target, entry.isIntersecting);
          }, { threshold: 0.6 }) : null;

          function animate(tile, on) {
            const media = tile.querySelector("img, video");
            if (!media) return;
            if (media.tagName === "VIDEO") {
              if (on) media.play().catch(() => {}); else media.pause();
            } else if (tile.dataset.animated) {
              const want = on ? tile.dataset.animated : (tile.dataset.still || tile.dataset.animated);
              if (media.getAttribute("src") !== want) media.setAttribute("src", want);
            }
          }

          function showError(message) {
            errorBox.textContent = message;
            errorBox.classList.toggle("shown", Boolean(message));
          }

          function addMedia(item, degraded, reason) {
            if (!item || !item.url || seen.has(item.url)) return;
            seen.add(item.url);
            count += 1;
            const tile = document.createElement("figure");
            tile.className = "tile";
            tile.dataset.url = item.url;
            tile.dataset.kind = item.kind;
            if (item.width && item.height) tile.style.setProperty("--ratio", item.width + " / " + item.height);
            const video = item.kind === "mp4" || item.kind === "webm";
            const still = item.still || (item.renditions || []).map((r) => r.url).find((u) => /\.(jpe?g|png)(\?|$)/i.test(u)) || null;
            if (video) {
              const element = document.createElement("video");
              element.muted = true; element.loop = true; element.playsInline = true;
              element.preload = still ? "none" : "metadata";
              if (still) element.poster = still;
              element.src = item.url;
              tile.appendChild(element);
            } else {
              const element = document.createElement("img");
              element.loading = "lazy";
              element.alt = item.title || "";
              if (still) { tile.dataset.still = still; tile.dataset.animated = item.url; }
              element.src = still || item.url;
              tile.appendChild(element);
            }
            if (degraded || item.degraded) {
              const badge = document.createElement("span");
              badge.className = "badge";
              badge.textContent = "degraded";
              badge.title = reason || item.degradedReason || "found by a fallback parser";
              tile.appendChild(badge);
            }
            const kind = document.createElement("span");
            kind.className = "kind";
            kind.textContent = item.kind;
            tile.appendChild(kind);
            const caption = document.createElement("figcaption");
            const link = document.createElement("a");
            link.href = item.url; link.target = "_blank"; link.rel = "noopener noreferrer";
            link.textContent = item.title || item.url;
            caption.appendChild(link);
            tile.appendChild(caption);
            tile.addEventListener("mouseenter", () => animate(tile, true));
            tile.addEventListener("mouseleave", () => animate(tile, false));
            if (viewer) viewer.observe(tile);
            grid.appendChild(tile);
          }

          // The page's search session (/v1/sessions): the server debounces the typing, cancels
          // superseded searches and guards "load more"; the page sends each text and renders
          // the states it is sent.
          let sessionId = null, wanted = 0, have = null, listening = null, sending = false, pending = null;

          function authorized(extra) {
            const h = Object.assign({}, extra);
            const token = sessionStorage.getItem("trawl-token");
            if (token) h["Authorization"] = "Bearer " + token;
            return h;
          }

          async function api(method, path) {
            for (let attempt = 0; ; attempt++) {
              const response = await fetch(path, { method, headers: authorized({ "Accept": "application/json" }) });
              if (response.status === 401 && attempt === 0) {
                const token = prompt("This server needs its access token:");
                if (token) { sessionStorage.setItem("trawl-token", token); continue; }
              }
              let body = null;
              try { body = await response.json(); } catch (_) {}
              if (!response.ok) {
                const error = new Error(body && body.error ? body.error.message + " (" + body.error.code + ")" : "The server answered " + response.status + ".");
                error.status = response.status;
                throw error;
              }
              return body;
            }
          }

          async function inSession(path) {
            for (let attempt = 0; ; attempt++) {
              if (!sessionId) { sessionId = (await api("POST", "/v1/sessions")).id; have = null; }
              try {
                return await api("POST", "/v1/sessions/" + sessionId + path);
              } catch (error) {
                // Closed, or idle too long: a new session, once.
                if (error.status !== 404 || attempt > 0) throw error;
                sessionId = null;
              }
            }
          }

          function clear() {
            grid.replaceChildren(); seen = new Set(); count = 0; more.classList.remove("shown");
          }

          // Each text goes to the session in order, the latest replacing any still waiting.
          function ask(text, now) {
            pending = { text: text.trim(), now };
            send();
          }

          async function send() {
            if (sending || !pending) return;
            const { text, now } = pending;
            pending = null;
            sending = true;
            try {
              const answer = await inSession("/query?q=" + encodeURIComponent(text) + (now ? "&now=true" : ""));
              wanted = answer.sequence;
              showError("");
              if (text) {
                grid.dataset.state = "loading";
                if (now || count === 0) status.textContent = "Looking…";
                listen();
              } else {
                clear(); grid.dataset.state = "idle"; status.textContent = "";
              }
            } catch (error) {
              showError(error.message);
            } finally {
              sending = false;
              send();
            }
          }

          // Reads the session's states until the query asked for last is settled.
          function listen() {
            if (listening) return;
            const controller = new AbortController();
            listening = controller;
            (async () => {
              try {
                let url = "/v1/sessions/" + sessionId + "/events";
                if (have) url += "?after=" + have.sequence + "." + have.count;
                const response = await fetch(url, { headers: authorized({ "Accept": "application/x-ndjson" }), signal: controller.signal });
                if (!response.ok) throw new Error("The server answered " + response.status + ".");
                const reader = response.body.getReader();
                const decoder = new TextDecoder();
                let buffer = "";
                for (;;) {
                  const { value, done } = await reader.read();
                  if (done) break;
                  buffer += decoder.decode(value, { stream: true });
                  let end;
                  while ((end = buffer.indexOf("\n")) >= 0) {
                    const text = buffer.slice(0, end);
                    buffer = buffer.slice(end + 1);
                    if (text.trim() && handle(JSON.parse(text))) { controller.abort(); return; }
                  }
                }
              } catch (error) {
                if (error.name !== "AbortError") showError(error.message);
              } finally {
                if (listening === controller) listening = null;
              }
            })();
          }

          // One state; true once the query asked for last has all it will get.
          function handle(event) {
            if (event.state === "searching") { status.textContent = "Looking…"; return false; }
            if (event.state === "idle" || event.sequence < wanted) return false;
            if (event.from === 0) clear();
            have = { sequence: event.sequence, count: event.from + event.sets.length };
            for (const set of event.sets) {
              for (const item of set.media || []) addMedia(item, set.degraded, set.degradedReason);
            }
            if (event.state === "failed") {
              showError(event.error.message + " (" + event.error.code + ")");
            } else if (event.loading) {
              status.textContent = count + (count === 1 ? " result" : " results") + "…";
              return false;
            }
            status.textContent = count === 0 ? (event.state === "failed" ? "" : "No GIFs found.") : count + (count === 1 ? " result" : " results");
            grid.dataset.state = "done";
            more.disabled = false;
            more.classList.toggle("shown", event.state === "results" && event.hasMore);
            return true;
          }

          async function loadMore() {
            more.disabled = true;
            status.textContent = "Loading more…";
            try {
              const answer = await inSession("/more");
              if (answer.started) { wanted = answer.sequence; grid.dataset.state = "loading"; listen(); }
              else { more.disabled = false; status.textContent = count + (count === 1 ? " result" : " results"); }
            } catch (error) {
              more.disabled = false;
              showError(error.message);
            }
          }

          function start(text, push) {
            text = text.trim();
            input.value = text;
            const url = text ? "/?q=" + encodeURIComponent(text) : "/";
            if (push) history.pushState({ q: text }, "", url); else history.replaceState({ q: text }, "", url);
            document.title = text ? text + " — Trawl" : "Trawl";
            ask(text, true);
          }

          // Search as the user types (the session waits for the typing to stop).
          input.addEventListener("input", () => {
            const text = input.value.trim();
            history.replaceState({ q: text }, "", text ? "/?q=" + encodeURIComponent(text) : "/");
            ask(text, false);
          });
          $("search").addEventListener("submit", (event) => { event.preventDefault(); start(input.value, true); });
          more.addEventListener("click", loadMore);
          window.addEventListener("popstate", () => start(new URLSearchParams(location.search).get("q") || "", false));
          const initial = new URLSearchParams(location.search).get("q");
          if (initial) start(initial, false);
        })();
        </script>
        </body>
        </html>
        """#
}
