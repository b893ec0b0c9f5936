import Foundation
import TrawlCore

/// Iframes: out-of-process ones (another site's frame, in a renderer of its own) are attached
/// as child targets and get the page's `Network` and `Fetch` handling; at the end, every
/// frame's DOM is read — same-origin frames through the page, the others in their own target.
extension PageLoad {
    /// A target attached to the page (auto-attach holds it until this lets it run). An iframe's
    /// session is routed into the page's stream and its domains enabled first, so its very first
    /// request is paused like the page's; any other kind (a worker) is simply let go.
    mutating func attach(_ child: String, isFrame: Bool) {
        if isFrame { frameSessions.append(child) }
        let connection = connection
        let parent = sessionId
        let configuration = configuration
        let observesResponses = interceptors.observesResponses
        let timeout = min(configuration.commandTimeout, remaining())
        Task {
            if isFrame {
                await connection.openChildSession(child, parent: parent)
                async let network = connection.send(
                    "Network.enable", PreparedTab.networkParameters(configuration), sessionId: child, timeout: timeout)
                async let fetch = connection.send(
                    "Fetch.enable", PreparedTab.fetchParameters(observesResponses: observesResponses), sessionId: child, timeout: timeout)
                // Frames inside the frame: attached to the same page.
                async let nested = connection.send(
                    "Target.setAutoAttach", ["autoAttach": .bool(true), "waitForDebuggerOnStart": .bool(true), "flatten": .bool(true)],
                    sessionId: child, timeout: timeout)
                _ = try? await (network, fetch, nested)
            }
            _ = try? await connection.send("Runtime.runIfWaitingForDebugger", sessionId: child, timeout: timeout)
        }
    }

    /// The DOM of every iframe that loaded a web page, each as a ``PayloadOrigin/domSnapshot``
    /// payload at the frame's URL. A frame that cannot be read in time is left out.
    func frameSnapshots() async -> [Payload] {
        var documents: [(href: String, html: String)] = []
        documents += await frameDocuments(session: sessionId, includingSelf: false)
        for child in frameSessions { documents += await frameDocuments(session: child, includingSelf: true) }
        var seen: Set<String> = []
        return documents.compactMap { document in
            guard let url = URL(string: document.href), url.scheme == "http" || url.scheme == "https",
                  seen.insert(document.href + "\u{0}" + String(document.html.count)).inserted else { return nil }
            return Payload(
                body: Data(document.html.utf8),
                info: PayloadInfo(
                    url: url, requestURL: url, status: 200, headers: [:], contentType: "text/html", charset: "utf-8", origin: .domSnapshot))
        }
    }

    /// `[href, html]` of the frame behind `session` (when `includingSelf`) and of every
    /// same-origin frame inside it; cross-origin frames throw on access and are skipped here.
    private func frameDocuments(session: String, includingSelf: Bool) async -> [(href: String, html: String)] {
        let expression = """
            (() => { const out = [];
              const html = d => (d.doctype ? '<!DOCTYPE ' + d.doctype.name + '>' : '') + d.documentElement.outerHTML;
              const walk = w => { for (let i = 0; i < w.frames.length; i++) {
                try { const f = w.frames[i]; if (f.document && f.document.documentElement) { out.push([f.location.href, html(f.document)]); walk(f); } } catch (e) {} } };
              \(includingSelf ? "if (document.documentElement) out.push([location.href, html(document)]);" : "")
              walk(window); return out; })()
            """
        let timeout = min(remaining(), .seconds(2))
        guard let reply = try? await connection.send(
            "Runtime.evaluate", ["expression": .string(expression), "returnByValue": .bool(true)], sessionId: session, timeout: timeout),
            let items = reply[path: "result", "value"]?.array else { return [] }
        return items.compactMap { item in
            guard let href = item[0]?.string, let html = item[1]?.string else { return nil }
            return (href, html)
        }
    }
}
