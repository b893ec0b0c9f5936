import Foundation

/// The browser benchmark's JavaScript pages, served by nginx beside the corpus: `/js/N` is one
/// small page whose markup names no media at all. Its script fetches `/api/N.json` (JSON naming
/// the page's GIF), builds an `<img>` from it, and builds a `<video><source>` whose URL it
/// assembles itself. A page is resolved right when both media are found:
/// `http://HOST/media/N-a.gif` (from the XHR payload, and in the DOM) and `http://HOST/media/N-b.mp4`
/// (only in the DOM). Media URLs answer 404, quickly, as anything else not served does.
enum JavaScriptSite {
    /// The page, the same file for every N (the script reads N from its own URL).
    static let page = Data(
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Clip</title></head>
        <body><div id="app"></div>
        <script>
        const n = location.pathname.split('/').pop();
        fetch('/api/' + n + '.json').then(r => r.json()).then(data => {
          const app = document.getElementById('app');
          for (const item of data.items) {
            const img = document.createElement('img');
            img.src = item.gif;
            img.alt = item.title;
            app.appendChild(img);
          }
          const video = document.createElement('video');
          const source = document.createElement('source');
          source.src = '/media/' + n + '-b.' + ['m', 'p', '4'].join('');
          source.type = 'video/' + ['m', 'p', '4'].join('');
          video.appendChild(source);
          app.appendChild(video);
        });
        </script></body></html>

        """.utf8)

    /// The second kind, `/jt/N`: the same page whose script fetches after a short timer (150 ms,
    /// a widget waiting for its slot) and, once its media are in, sets another (300 ms, a
    /// spinner hidden, a carousel's first turn) — work still pending when the media are there.
    static let timerPage = Data(
        String(decoding: page, as: UTF8.self)
            .replacingOccurrences(of: "fetch('/api/' + n + '.json')", with: "new Promise(r => setTimeout(r, 150)).then(() => fetch('/api/' + n + '.json'))")
            .replacingOccurrences(
                of: "  app.appendChild(video);\n", with: "  app.appendChild(video);\n  setTimeout(() => { app.dataset.shown = '1'; }, 300);\n"
            )
            .utf8)

    static let fileName = "js-page.html"
    static let timerFileName = "js-timer-page.html"

    /// The page kinds: `/js/N` (fetch at once) and `/jt/N` (fetch after a timer).
    enum Kind: String, CaseIterable {
        case plain = "js"
        case timer = "jt"
    }

    /// nginx `location` blocks: the page, and its API answered from the URL alone.
    static let locations = """
        location ~ ^/js/[0-9]+$ { default_type text/html; try_files /\(fileName) =404; }
                    location ~ ^/jt/[0-9]+$ { default_type text/html; try_files /\(timerFileName) =404; }
                    location ~ ^/api/(?<n>[0-9]+)\\.json$ {
                        default_type application/json;
                        return 200 '{"items":[{"title":"clip $n","gif":"http://$http_host/media/$n-a.gif"}]}';
                    }
        """

    static func url(port: Int, _ n: Int, kind: Kind = .plain) -> String { "http://127.0.0.1:\(port)/\(kind.rawValue)/\(n)" }

    /// The two media URLs page `n` must yield.
    static func expectedMedia(port: Int, _ n: Int) -> Set<String> {
        ["http://127.0.0.1:\(port)/media/\(n)-a.gif", "http://127.0.0.1:\(port)/media/\(n)-b.mp4"]
    }

    /// `n` from a page URL, or `nil` for a URL that is not one of these pages.
    static func number(_ url: String) -> Int? {
        guard let range = url.range(of: "/js/") ?? url.range(of: "/jt/") else { return nil }
        return Int(url[range.upperBound...])
    }
}
