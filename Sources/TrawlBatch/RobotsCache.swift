import Foundation
import TrawlCore

/// Each host's `robots.txt`, fetched once per run and shared by its jobs.
actor RobotsCache {
    enum Answer: Sendable {
        case rules(RobotsTxt)
        /// The file could not be read for a reason that may pass (5xx, no connection): RFC 9309
        /// says to assume everything is disallowed for now.
        case unavailable(String)
    }

    private let transport: any PayloadTransport
    private let agent: String
    private var known: [String: Task<Answer, Never>] = [:]

    /// - Parameter agent: the product token groups are matched against (`trawl`).
    init(transport: any PayloadTransport, agent: String) {
        self.transport = transport
        self.agent = agent
    }

    /// The rules for `url`'s host (scheme, host and port).
    func rules(for url: URL) async -> Answer {
        guard let scheme = url.scheme, let host = url.host else { return .rules(.allowAll) }
        let origin = "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
        if let task = known[origin] { return await task.value }
        let transport = self.transport
        let agent = self.agent
        let task = Task { () -> Answer in
            guard let robotsURL = URL(string: origin + "/robots.txt") else { return .rules(.allowAll) }
            do {
                var payload: Payload?
                for try await response in transport.payloads(for: FetchRequest(url: robotsURL), context: nil) {
                    payload = response
                    break
                }
                guard let payload else { return .rules(.allowAll) }
                switch payload.info.status {
                case 200..<300: return .rules(RobotsTxt(String(decoding: payload.body, as: UTF8.self), agent: agent))
                case 500...: return .unavailable("robots.txt answered HTTP \(payload.info.status)")
                default: return .rules(.allowAll)
                }
            } catch {
                return .unavailable("robots.txt: \(error)")
            }
        }
        known[origin] = task
        let answer = await task.value
        if case .unavailable = answer { known[origin] = nil }
        return answer
    }
}
