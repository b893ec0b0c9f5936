import Foundation
import Testing
import TrawlTesting

@testable import TrawlProbe

/// Each reader on files that real encoders wrote: ffmpeg (GIF, APNG, animated WebP, MP4 with
/// `moov` first and last, WebM, HLS, DASH) and ImageMagick (a GIF and the stills), made at test
/// time from the Debian packages `make deps` installs. Each file is read as a probe reads it:
/// its first 64 KiB.
@Suite("Media sniffing: files real encoders wrote", .tags(.process), .timeLimit(.minutes(2)))
struct RealFileTests {
    /// The files, made once for the suite, in a folder of their own. A task the tests await, not
    /// a value made on first use: the first test would make them in a blocking wait on a thread of
    /// the cooperative pool while the others blocked on the value, every pool thread held.
    static let folder = Task<URL, any Error> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trawl-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let small = ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=1"]
        let h264 = ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"]
        // 4 s of 320×240, every frame a key frame: ~650 KB, so its `moov` is far past 64 KiB when last.
        let big = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4"] + h264 + ["-g", "1"]
        let jobs: [(String, [String])] = [
            ("ffmpeg", small + ["-loop", "0", "anim.gif"]),
            ("ffmpeg", small + ["-plays", "0", "-f", "apng", "anim.png"]),
            ("ffmpeg", small + ["-c:v", "libwebp_anim", "-loop", "0", "anim.webp"]),
            ("ffmpeg", big + ["-movflags", "+faststart", "front.mp4"]),
            ("ffmpeg", big + ["end.mp4"]),
            ("ffmpeg", ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=2", "-c:v", "libvpx", "clip.webm"]),
            (
                "ffmpeg",
                ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=4"] + h264 + [
                    "-b:v", "200k", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", "-master_pl_name", "master.m3u8",
                    "-var_stream_map", "v:0", "-hls_segment_filename", "v%v_%d.ts", "v%v.m3u8",
                ]
            ),
            ("ffmpeg", ["-f", "lavfi", "-i", "testsrc=size=96x64:rate=10:duration=2"] + h264 + ["-f", "dash", "manifest.mpd"]),
            ("convert", ["-delay", "20", "-size", "30x20", "xc:red", "xc:blue", "xc:green", "-loop", "0", "magick.gif"]),
            ("convert", ["-size", "50x40", "xc:red", "still.gif"]),
            ("convert", ["-size", "50x40", "xc:red", "still.png"]),
            ("convert", ["-size", "50x40", "xc:red", "-quality", "80", "still.webp"]),
            ("convert", ["-size", "50x40", "xc:red", "still.jpg"]),
        ]
        let imageMagick = try await Self.imageMagick()
        for (tool, arguments) in jobs {
            let program = tool == "convert" ? imageMagick : URL(fileURLWithPath: "/usr/bin/\(tool)")
            let run: CommandRun
            do {
                run = try await CommandRun.run(program, tool == "ffmpeg" ? ["-v", "error", "-y"] + arguments : arguments, in: folder)
            } catch let error as CommandTimedOut {
                throw error
            } catch {
                throw Missing(tool: program.path, error: error)
            }
            guard run.status == 0 else { throw Failed(tool: tool, arguments: arguments, status: run.status) }
        }
        return folder
    }

    /// ImageMagick under any of the names it is installed as (`magick` for version 7, Debian's
    /// `convert-im6.q16`, `convert`), as `make deps` looks for it: a program of that name counts
    /// only if its `-version` names ImageMagick's version (a stand-in called `convert` does not).
    static func imageMagick() async throws -> URL {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        for name in ["magick", "convert-im6.q16", "convert"] {
            for folder in folders {
                let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
                guard FileManager.default.isExecutableFile(atPath: candidate.path) else { continue }
                let version = try? await CommandRun.run(candidate, ["-version"])
                if let version, version.status == 0, version.stdout.hasPrefix("Version: ImageMagick ") { return candidate }
            }
        }
        throw Missing(tool: "ImageMagick (magick, convert-im6.q16 or convert)", error: CocoaError(.fileNoSuchFile))
    }

    struct Missing: Error, CustomStringConvertible {
        var tool: String
        var error: any Error
        var description: String { "\(tool) could not run (\(error)): `make deps` installs ffmpeg and imagemagick" }
    }

    struct Failed: Error, CustomStringConvertible {
        var tool: String
        var arguments: [String]
        var status: Int32
        var description: String { "\(tool) \(arguments.joined(separator: " ")) exited with \(status)" }
    }

    /// The first 64 KiB of a made file, as a probe reads them.
    static func probe(_ name: String) async throws -> (facts: MediaFacts, size: Int) {
        let bytes = try Data(contentsOf: try await folder.value.appendingPathComponent(name))
        return (MediaSniffer.read(Array(bytes.prefix(64 << 10))), bytes.count)
    }

    @Test func gifs() async throws {
        let ffmpeg = try await Self.probe("anim.gif").facts
        #expect(ffmpeg == MediaFacts(format: .gif, width: 96, height: 64, animated: true, frames: 10, durationSeconds: 1, loopCount: 0))
        let magick = try await Self.probe("magick.gif").facts
        #expect(magick == MediaFacts(format: .gif, width: 30, height: 20, animated: true, frames: 3, durationSeconds: 0.6, loopCount: 0))
        let still = try await Self.probe("still.gif").facts
        #expect(still.format == .gif && still.animated == false && still.frames == 1 && still.width == 50 && still.height == 40)
    }

    @Test func pngAndAPNG() async throws {
        let animated = try await Self.probe("anim.png").facts
        #expect(animated.format == .apng && animated.animated == true && animated.frames == 10)
        #expect(animated.width == 96 && animated.height == 64 && animated.loopCount == 0)
        #expect(animated.durationSeconds.map { abs($0 - 1) < 0.01 } == true, "\(animated)")
        #expect(try await Self.probe("still.png").facts == MediaFacts(format: .png, width: 50, height: 40, animated: false, frames: 1))
    }

    @Test func webp() async throws {
        let animated = try await Self.probe("anim.webp").facts
        #expect(animated.format == .webp && animated.animated == true && animated.width == 96 && animated.height == 64)
        #expect((animated.frames ?? 0) >= 2 && animated.loopCount == 0, "\(animated)")
        #expect(animated.durationSeconds.map { abs($0 - 1) < 0.01 } == true, "\(animated)")
        #expect(try await Self.probe("still.webp").facts == MediaFacts(format: .webp, width: 50, height: 40, animated: false, frames: 1))
    }

    @Test func mp4WithItsMovieFirstAndLast() async throws {
        let (front, size) = try await Self.probe("front.mp4")
        #expect(size > 64 << 10, "the file is longer than what a probe reads")
        #expect(front.format == .mp4 && front.width == 320 && front.height == 240 && front.frames == 100 && front.animated == true)
        #expect(front.durationSeconds.map { abs($0 - 4) < 0.05 } == true, "\(front)")
        // `moov` after `mdat`, past the first 64 KiB: what it is, and nothing guessed.
        #expect(try await Self.probe("end.mp4").facts == MediaFacts(format: .mp4))
    }

    @Test func webm() async throws {
        let clip = try await Self.probe("clip.webm").facts
        #expect(clip.format == .webm && clip.width == 96 && clip.height == 64 && clip.animated == true)
        #expect(clip.durationSeconds.map { abs($0 - 2) < 0.05 } == true, "\(clip)")
    }

    @Test func playlists() async throws {
        let master = try await Self.probe("master.m3u8").facts
        #expect(master.format == .hls && master.variants.map(\.width) == [96] && master.variants.map(\.height) == [64], "\(master)")
        let media = try await Self.probe("v0.m3u8").facts
        #expect(media.format == .hls && media.durationSeconds.map { abs($0 - 4) < 0.05 } == true, "\(media)")
        let dash = try await Self.probe("manifest.mpd").facts
        #expect(dash.format == .dash && dash.durationSeconds == 2, "\(dash)")
        #expect(dash.variants.map(\.width) == [96] && dash.variants.map(\.height) == [64], "\(dash)")
    }

    @Test func jpeg() async throws {
        #expect(try await Self.probe("still.jpg").facts.format == .jpeg)
    }
}
