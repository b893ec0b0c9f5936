import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TrawlServer
import TrawlTesting

/// `GET /v1/resolve?…&probe=true`: the media as their URLs really answer.
@Suite("/v1/resolve probe", .timeLimit(.minutes(3)))
struct ProbeRouteTests {
    @Test func probedMediaCarryTheirFactsAndTheDeadAreDropped() async throws {
        let gif = MediaBytes.gif(width: 480, height: 270, frames: 12, delay: 5)
        let site = try LoopbackServer { request in
            switch request.path {
            case "/page":
                return .html("<html><body><img src=\"http://a.test/cat.gif\" width=\"400\" height=\"300\"><img src=\"http://a.test/gone.gif\" width=\"400\" height=\"300\"></body></html>")
            case "/cat.gif":
                return .ok(headers: [("Content-Type", "image/gif")], body: Data(gif))
            default:
                return .status(404)
            }
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.router) { client in
            let page = encoded("http://a.test/page")
            let plain = try await client.execute(uri: "/v1/resolve?q=\(page)", method: .get).json()
            #expect((plain["media"] as? [[String: Any]])?.count == 2)

            let probed = try await client.execute(uri: "/v1/resolve?q=\(page)&probe=true", method: .get)
            #expect(probed.status == .ok, "\(probed.text)")
            let media = try #require(try probed.json()["media"] as? [[String: Any]])
            #expect(media.count == 1, "\(probed.text)")
            let probe = try #require(media.first?["probe"] as? [String: Any])
            #expect(probe["animated"] as? Bool == true && probe["frames"] as? Int == 12 && probe["width"] as? Int == 480)
            #expect(probe["dead"] as? Bool == false && probe["checkedAt"] is String)

            let kept = try await client.execute(uri: "/v1/resolve?q=\(page)&probe=true&keepDead=true", method: .get).json()
            let dead = (kept["media"] as? [[String: Any]])?.compactMap { $0["probe"] as? [String: Any] }.filter { $0["dead"] as? Bool == true }
            #expect(dead?.count == 1)
            #expect(try await client.execute(uri: "/v1/resolve?q=\(page)&probe=maybe", method: .get).status == .badRequest)
        }
    }

    @Test func explainSaysWhyEachMediaWasKeptAndWhatWasDropped() async throws {
        let site = try LoopbackServer { request in
            request.path == "/page"
                ? .html(#"<html><body><img src="http://a.test/cat.gif" width="400" height="300"><img src="http://a.test/ui/expand.gif"></body></html>"#)
                : .status(404)
        }
        defer { site.shutdown() }
        let server = try ServerFixture.live(site: site, hosts: ["a.test"])
        try await ServerFixture.application(server).test(.router) { client in
            let page = encoded("http://a.test/page")
            let plain = try await client.execute(uri: "/v1/resolve?q=\(page)", method: .get).json()
            #expect(plain["dropped"] == nil)
            #expect((plain["media"] as? [[String: Any]])?.first?["explanation"] == nil)
            let explained = try await client.execute(uri: "/v1/resolve?q=\(page)&explain=true", method: .get)
            #expect(explained.status == .ok, "\(explained.text)")
            let answer = try explained.json()
            let media = try #require(answer["media"] as? [[String: Any]])
            #expect(media.map { $0["url"] as? String } == ["http://a.test/cat.gif"])
            #expect((media.first?["explanation"] as? [String: Any])?["rule"] as? String == "declared-size")
            #expect((media.first?["evidence"] as? [String])?.contains("declared 400×300") == true)
            let dropped = try #require(answer["dropped"] as? [[String: Any]])
            #expect(dropped.map { $0["url"] as? String } == ["http://a.test/ui/expand.gif"])
            #expect((dropped.first?["explanation"] as? [String: Any])?["verdict"] as? String == "dropped")
        }
    }
}
