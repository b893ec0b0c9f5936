import Foundation
import TrawlCore

/// Iframes: out-of-process ones (another site's frame, in a renderer of its own) are attached
/// as child targets and get the page's `Network` and `Fetch` handling; at the end, every
/// frame's DOM is read — same-origin frames through the page, the others in their own target.
extension PageLoad {
    /// Target types whose requests the page pauses like its own: out-of-process iframes and
    /// workers (a worker's `fetch()` is the page's request too, and in a replay it must be
    /// answered from the recording, never sent). Dedicated workers are the page's children and
    /// always come this way; shared and service workers are not attached through the page
    /// (checked: a shared worker's request was not paused), and are kept in by the offline
    /// resolver of replays and guarded runs instead.
    static let interceptedTargetTypes: Set<String> = ["iframe", "worker", "shared_worker", "service_worker"]

    /// A target attached to the page (auto-attach holds it until this lets it run). An iframe's
    /// or a worker's session is routed into the page's stream and its domains enabled first, so
    /// its very first request is paused like the page's; any other kind is simply let go.
    mutating func attach(_ child: String, type: String) {
        let isFrame = type == "iframe"
        let intercepted = Self.interceptedTargetTypes.contains(type)
        if isFrame { frameSessions.append(child) }
        if intercepted { settle.attachedChildren += 1 }
        let connection = connection
        let parent = sessionId
        let configuration = configuration
        let paused = PausedRequests(interceptors: interceptors, configuration: configuration)
        let timeout = min(configuration.commandTimeout, remaining())
        Task {
            if intercepted {
                await connection.openChildSession(child, parent: parent)
                async let network = connection.send(
                    "Network.enable", PreparedTab.networkParameters(configuration), sessionId: child, timeout: timeout)
                async let fetch = connection.send("Fetch.enable", paused.fetchParameters, sessionId: child, timeout: timeout)
                // Frames inside the frame, workers a worker starts: attached to the same page.
                async let nested = connection.send(
                    "Target.setAutoAttach", ["autoAttach": .bool(true), "waitForDebuggerOnStart": .bool(true), "flatten": .bool(true)],
                    sessionId: child, timeout: timeout)
                _ = try? await network
                _ = try? await fetch
                _ = try? await nested
            }
            _ = try? await connection.send("Runtime.runIfWaitingForDebugger", sessionId: child, timeout: timeout)
        }
    }

    /// The DOM of every iframe that loaded a web page or holds an `srcdoc` document, each as a
    /// ``PayloadOrigin/domSnapshot`` payload at the frame's URL (an `srcdoc` frame's: its parent's): the page's own frames (cross-origin ones included, read in an
    /// isolated world of their own), then each out-of-process frame and the frames inside it.
    /// A frame that cannot be read in time is left out.
    func frameSnapshots() async -> [Payload] {
        var documents = await frameDocuments(session: sessionId, includingRoot: false)
        for child in frameSessions { documents += await frameDocuments(session: child, includingRoot: true) }
        var seen: Set<String> = []
        return documents.compactMap { document in
            guard let url = URL(string: document.href), url.scheme == "http" || url.scheme == "https",
                seen.insert(document.href + "\u{0}" + document.html).inserted
            else { return nil }
            return Payload(
                body: Data(document.html.utf8),
                info: PayloadInfo(
                    url: url, requestURL: url, status: 200, headers: [:], contentType: "text/html", charset: "utf-8", origin: .domSnapshot))
        }
    }

    /// `[href, html]` of each frame in the frame tree of `session` (its root too when
    /// `includingRoot`). Each is read in an isolated world made for it: DevTools may read a
    /// frame the page's own scripts may not (another origin's).
    private func frameDocuments(session: String, includingRoot: Bool) async -> [(href: String, html: String)] {
        let timeout = min(remaining(), .seconds(2))
        guard let tree = try? await connection.send("Page.getFrameTree", sessionId: session, timeout: timeout)["frameTree"] else { return [] }
        var frames: [String] = []
        func collect(_ node: JSONValue, isRoot: Bool) {
            if let id = node[path: "frame", "id"]?.string, !isRoot || includingRoot,
                let href = node[path: "frame", "url"]?.string, href.hasPrefix("http") || href == "about:srcdoc"
            {
                frames.append(id)
            }
            for child in node["childFrames"]?.array ?? [] { collect(child, isRoot: false) }
        }
        collect(tree, isRoot: true)
        var documents: [(href: String, html: String)] = []
        for frame in frames.prefix(32) {
            let timeout = min(remaining(), .seconds(2))
            guard
                let world = try? await connection.send(
                    "Page.createIsolatedWorld", ["frameId": .string(frame), "worldName": .string("trawl-frame")], sessionId: session, timeout: timeout),
                let context = world["executionContextId"],
                let reply = try? await connection.send(
                    "Runtime.evaluate",
                    ["expression": .string(DOMSnapshot.frameExpression), "contextId": context, "returnByValue": .bool(true)],
                    sessionId: session, timeout: timeout),
                let href = reply[path: "result", "value", 0]?.string, let html = reply[path: "result", "value", 1]?.string
            else { continue }
            documents.append((href, html))
        }
        return documents
    }
}
