import TrawlCore

/// The number a media is known by across pages (the `urlKey` columns): a 63-bit hash of its
/// ``TrawlCore/CanonicalURL/key(_:)``, so every spelling of one URL (scheme, host case, HTML or
/// JSON escapes) has the same key and a search can count and page distinct media by comparing
/// one integer per match (migration `v5-media-url-key`).
///
/// A hash rather than a numbered table of keys (as `cell` numbers its triples): no second unique
/// index to write per media, eight bytes a row. Two URLs share a key by chance with probability
/// about n²/2⁶⁴ among n media (under 10⁻⁷ at a million): then they show as one result.
/// Never negative: the triggers give a row without a key (one an older Trawl wrote into this
/// file) its id negated, a key no URL has.
enum MediaKey {
    /// The key of a media URL as written anywhere.
    static func of(_ url: String) -> Int64 {
        ofCanonical(CanonicalURL.key(url))
    }

    /// The key of an already canonical URL: FNV-1a over its UTF-8 bytes, then MurmurHash3's
    /// finaliser so that every bit depends on every byte. Fixed, unlike Swift's `Hasher` (seeded
    /// per process): the key is stored.
    static func ofCanonical(_ key: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return Int64(bitPattern: hash & UInt64(Int64.max))
    }
}
