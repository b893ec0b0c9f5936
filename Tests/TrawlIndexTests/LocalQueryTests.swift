import Testing
import TrawlCore

@testable import TrawlIndex

@Suite("!local queries")
struct LocalQueryTests {
    @Test("Words, phrases and prefixes become quoted FTS5; filters are taken out")
    func reading() throws {
        let query = try LocalQuery(parsing: #"!local cat "typing fast" key* site:giphy.com kind:mp4,gif size:small"#)
        #expect(query.match == #""cat" "typing fast" "key"*"#)
        #expect(query.sites == ["giphy"])
        #expect(query.kinds == ["mp4", "gif"])
        #expect(query.sizes == ["small"])
    }

    @Test("animated: and min-duration: filter on probes")
    func probeFilters() throws {
        let query = try LocalQuery(parsing: "!local cat animated:yes min-duration:2.5")
        #expect(query.match == #""cat""#)
        #expect(query.animated == true)
        #expect(query.minDurationSeconds == 2.5)
        #expect(try LocalQuery(parsing: "animated:no").animated == false)
        #expect(try LocalQuery(parsing: "min-duration:3s").minDurationSeconds == 3)
        #expect(try LocalQuery(parsing: "cat").animated == nil)
        #expect(try LocalQuery(parsing: "cat").minDurationSeconds == nil)
    }

    @Test("Operators and parentheses pass; FTS5 syntax inside words does not")
    func operators() throws {
        #expect(try LocalQuery(parsing: "!local (cat OR dog) NOT fish").match == #"( "cat" OR "dog" ) NOT "fish""#)
        // NEAR, ^ and a quote inside a phrase are text here, never syntax.
        #expect(try LocalQuery(parsing: "!local NEAR ^cat").match == #""NEAR" "^cat""#)
        #expect(try LocalQuery(parsing: #"!local "say "" hi""#).match == #""say" "hi""#)
        // A pasted URL is a phrase of its words, not a filter.
        #expect(try LocalQuery(parsing: "!local https://giphy.com/gifs").match == #""https://giphy.com/gifs""#)
        #expect(try LocalQuery(parsing: "!local site:giphy").match == nil)
    }

    @Test(
        "What cannot be read is an invalid-query error naming the query, never SQL",
        arguments: [
            "!local \"cat", "!local cat OR", "!local OR cat", "!local (cat", "!local cat)", "!local ()", "!local *cat",
            "!local c*t", "!local kind:jpeg", "!local size:huge", "!local animated:maybe", "!local animated:yes,no",
            "!local min-duration:long", "!local min-duration:-1", "!local min-duration:nan", "!local colour:red", "!local cat AND OR dog", "!local \"\"",
        ])
    func invalid(_ text: String) throws {
        let error = try #require(throws: IndexError.self) { try LocalQuery(parsing: text) }
        #expect(error.code == .invalidQuery)
        #expect(error.errorCode == "invalid-query")
        #expect(error.message.contains(text))
        #expect(!error.message.lowercased().contains("sql"))
        #expect(!error.message.contains("fts5"))
    }

    @Test("Site names: registrable label, country second levels, addresses as they are")
    func siteNames() {
        #expect(SiteName.of(url: "https://media.giphy.com/x.gif") == "giphy")
        #expect(SiteName.of(url: "https://www.bbc.co.uk/news") == "bbc")
        #expect(SiteName.of(url: "http://127.0.0.1:8080/p") == "127.0.0.1")
        #expect(SiteName.of(url: "file:///tmp/page.html") == "local")
        #expect(SiteName.of(host: "Giphy") == "giphy")
        #expect(SiteName.of(host: ".giphy.com.") == "giphy")
        // The quick path and Foundation's parser agree; what the quick path does not read goes to the parser.
        #expect(SiteName.plainHost(of: "https://Media.Giphy.com/x.gif?a=1") == "media.giphy.com")
        #expect(SiteName.plainHost(of: "http://tenor.com") == "tenor.com")
        #expect(SiteName.plainHost(of: "https://user@giphy.com/") == nil)
        #expect(SiteName.plainHost(of: "http://[::1]:8080/") == nil)
        #expect(SiteName.plainHost(of: "ftp://giphy.com/") == nil)
        #expect(SiteName.of(url: "https://user@media.giphy.com/x") == "giphy")
        #expect(SiteName.of(url: "http://[::1]:8080/p") == "[::1]" || SiteName.of(url: "http://[::1]:8080/p") == "::1")
    }

    @Test("Size classes by the longer side")
    func sizes() {
        #expect(SizeClass(width: 200, height: 150) == .small)
        #expect(SizeClass(width: 480, height: 270) == .medium)
        #expect(SizeClass(width: 360, height: 1280) == .large)
        #expect(SizeClass(width: nil, height: nil) == .unknown)
    }
}
