import TrawlCore

/// The parsers that work on any site, in chain order.
public enum GenericParsers {
    /// OpenGraph, Twitter cards, JSON-LD, oEmbed, microdata, HTML5 media, then the text fallback.
    public static var all: [any Parser] {
        [
            OpenGraphParser(), TwitterCardParser(), JSONLDParser(), OEmbedParser(), MicrodataParser(), HTML5MediaParser(),
            DirectMediaParser(),
            RegexFallbackParser(),
        ]
    }

    /// A chain of ``all`` plus `siteParsers` in front.
    public static func chain(siteParsers: [any Parser] = []) -> ParserChain {
        ParserChain(siteParsers + all)
    }
}
