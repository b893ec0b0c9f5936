public import TrawlCore

/// The parsers that work on any site, in chain order.
public enum GenericParsers {
    /// OpenGraph, Twitter cards, JSON-LD, oEmbed, microdata, HTML5 media, the page's item in
    /// its state objects, then the fallbacks: every item of a state object, the text scan.
    package static var all: [any Parser] {
        [
            OpenGraphParser(), TwitterCardParser(), JSONLDParser(), OEmbedParser(), MicrodataParser(), HTML5MediaParser(),
            DirectMediaParser(), StateMediaParser(.pageItem),
            StateMediaParser(.everyItem), RegexFallbackParser(),
        ]
    }

    /// A chain of ``all`` plus `siteParsers` in front.
    public static func chain(siteParsers: [any Parser] = []) -> ParserChain {
        ParserChain(siteParsers + all)
    }
}
