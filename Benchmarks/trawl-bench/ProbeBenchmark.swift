import ArgumentParser
import Foundation
import TrawlTesting

/// `trawl-bench probe`: what `--probe` adds to a page. The real `trawl batch`, every host on
/// 127.0.0.1 through nginx (`--connect-to`), once as pages claim their media and once with
/// `--probe`, in alternating rounds, over two lists: the generic corpus (real pages, few of
/// which carry a GIF) and gallery pages (each with `--media` media, GIF, MP4 and WebP, on three
/// media hosts). nginx answers each media path by its extension with a file of that format
/// (headers a reader knows, filled to 1–2 MB, so a probe's range is a small part of it) and
/// honours `Range`, as media hosts do. A media path of no known extension gets a 404 (a dead
/// media, as a probe finds it).
///
/// Reports, per page: the wall time and CPU `--probe` adds at the concurrency asked for
/// (`--concurrency 1`: the added latency of one page at a time), and the probes made.
enum ProbeBenchmark {
    struct Options: ParsableArguments {
        @Option(help: "URLs in each list.")
        var pages = 1000

        @Option(help: "trawl batch's --concurrency and --per-host.")
        var concurrency = 32

        @Option(help: "Rounds, each trawl batch without --probe and then with it.")
        var rounds = 3

        /// Media per gallery page.
        @Option(help: "Media per gallery page.")
        var media = 6
    }

    /// One file per extension: real headers, then filler to a media file's usual size.
    static func mediaFiles() -> [String: Data] {
        func padded(_ bytes: [UInt8], to size: Int) -> Data { Data(bytes + [UInt8](repeating: 0, count: max(0, size - bytes.count))) }
        let gif = padded(MediaBytes.gif(width: 480, height: 270, frames: 40, delay: 5), to: 1_500_000)
        let mp4 = padded(MediaBytes.mp4(width: 640, height: 360, frames: 150, seconds: 6), to: 2_000_000)
        let webp = padded(MediaBytes.webp(width: 480, height: 270, frames: 24), to: 1_000_000)
        let webm = padded(MediaBytes.webm(width: 640, height: 360, seconds: 6), to: 2_000_000)
        let png = padded(MediaBytes.png(width: 480, height: 270, frames: 12), to: 800_000)
        return ["m.gif": gif, "m.mp4": mp4, "m.webp": webp, "m.webm": webm, "m.png": png, "m.jpg": padded([0xFF, 0xD8, 0xFF, 0xE0], to: 200_000)]
    }

    /// Gallery page `n`: `count` media (GIF, MP4, WebP in turn) spread over three media hosts,
    /// each with a declared size, in the page's main content.
    static func gallery(_ n: Int, count: Int) -> String {
        let items = (0..<count).map { i -> String in
            let host = "https://media\(i % 3 + 1).example.com/\(n)/\(i)"
            switch i % 3 {
            case 0: return "<figure><img src=\"\(host).gif\" width=\"480\" height=\"270\" alt=\"clip \(i)\"></figure>"
            case 1: return "<figure><video src=\"\(host).mp4\" width=\"640\" height=\"360\" autoplay loop muted></video></figure>"
            default: return "<figure><img src=\"\(host).webp\" width=\"480\" height=\"270\" alt=\"clip \(i)\"></figure>"
            }
        }
        return "<!doctype html><html><head><title>Gallery \(n)</title></head><body><main><article><h1>Gallery \(n)</h1>"
            + items.joined() + "</article></main></body></html>"
    }

    static func run(_ options: Options) throws {
        let files = try Corpus.genericPages()
        var extra = mediaFiles()
        let galleries = 50
        for n in 0..<galleries { extra["gallery-\(n).html"] = Data(gallery(n, count: options.media).utf8) }
        // Any path ending in a media extension gets that format's file.
        let locations = ["gif", "mp4", "webp", "webm", "png", "jpg", "jpeg"].map { ext in
            "location ~* \\.\(ext)$ { default_type \(ext == "mp4" || ext == "webm" ? "video" : "image")/\(ext == "jpg" ? "jpeg" : ext); try_files /m.\(ext == "jpeg" ? "jpg" : ext) =404; }"
        }.joined(separator: "\n")
        let nginx = try NginxServer(pages: files, files: extra, locations: locations)
        defer { nginx.stop() }
        print("server: nginx \(NginxServer.version) on 127.0.0.1:\(nginx.port), every host (--connect-to), ranges honoured")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-bench-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let lists: [(String, [String])] = [
            ("generic corpus (\(files.count) pages)", BatchBenchmark.corpusURLs(port: nginx.port, names: files.map(\.lastPathComponent), count: options.pages)),
            (
                "gallery pages (\(options.media) media each, 3 media hosts)",
                (0..<options.pages).map { "http://127.0.0.1:\(nginx.port)/p/\($0)/gallery-\($0 % galleries).html" }
            ),
        ]
        for (name, urls) in lists {
            print("list: \(options.pages) URLs over the \(name), concurrency \(options.concurrency)")
            try measure(urls, in: folder, port: nginx.port, options: options)
        }
    }

    static func measure(_ urls: [String], in folder: URL, port: Int, options: Options) throws {
        let list = folder.appendingPathComponent("urls.txt")
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: list)

        struct Run { var seconds: Double; var cpu: Double; var probes: Int; var dead: Int; var media: Int }
        func batch(_ name: String, probe: Bool) throws -> Run? {
            let out = folder.appendingPathComponent("\(name).jsonl")
            let store = folder.appendingPathComponent("\(name).sqlite")
            defer {
                try? FileManager.default.removeItem(at: out)
                try? FileManager.default.removeItem(at: store)
            }
            let result = try BatchBenchmark.spawn(
                [
                    BatchBenchmark.trawlBinary, "batch", list.path, "--out", out.path, "--store", store.path,
                    "--concurrency", "\(options.concurrency)", "--per-host", "\(options.concurrency)", "--quiet",
                    "--connect-to", "::127.0.0.1:\(port)", "--plain-http", "--browser", "never",
                ] + (probe ? ["--probe", "--keep-dead"] : []))
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n")
            guard lines.count == urls.count else {
                print("trawl batch\(probe ? " --probe" : "") wrote \(lines.count) of \(urls.count) lines (exit \(result.status)); not counted")
                return nil
            }
            var probes = 0, dead = 0, found = 0
            for line in lines {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let items = object["media"] as? [[String: Any]]
                else { continue }
                found += items.count
                for item in items {
                    guard let probe = item["probe"] as? [String: Any] else { continue }
                    probes += 1
                    if probe["dead"] as? Bool == true { dead += 1 }
                }
            }
            return Run(seconds: result.seconds, cpu: result.cpu, probes: probes, dead: dead, media: found)
        }

        var plain: [Run] = [], probed: [Run] = []
        for round in 0..<options.rounds {
            guard let a = try batch("plain-\(round)", probe: false), let b = try batch("probe-\(round)", probe: true) else { continue }
            plain.append(a)
            probed.append(b)
            print(
                String(
                    format: "  round %d: %.2f s plain, %.2f s with --probe (%d media, %d probes, %d dead); CPU %.2f → %.2f ms per page",
                    round + 1, a.seconds, b.seconds, b.media, b.probes, b.dead,
                    a.cpu * 1000 / Double(options.pages), b.cpu * 1000 / Double(options.pages)))
        }
        guard !plain.isEmpty else { return }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let pages = Double(options.pages)
        let wall = median(zip(plain, probed).map { ($1.seconds - $0.seconds) * 1000 / pages })
        let cpu = median(zip(plain, probed).map { ($1.cpu - $0.cpu) * 1000 / pages })
        let probes = Double(probed[0].probes) / pages
        print(String(format: "pages: %.0f/s plain, %.0f/s with --probe (medians)", pages / median(plain.map(\.seconds)), pages / median(probed.map(\.seconds))))
        print(
            String(
                format:
                    "--probe adds %.2f ms of wall time and %.2f ms of CPU per page at concurrency %d (%.1f probes per page, at most 64 KiB each; medians of %d rounds)",
                wall, cpu, options.concurrency, probes, plain.count))
    }
}
