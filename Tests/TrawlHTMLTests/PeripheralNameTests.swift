import Testing

@testable import TrawlHTML

/// Which container ids and classes mark other posts and page furniture.
@Suite("Peripheral containers")
struct PeripheralNameTests {
    @Test(arguments: [
        ("related-posts", true), ("Sidebar widget", true), ("comments", true), ("promo-strip", true), ("ad-slot top", true),
        ("box ads", true), ("ADS_top", true), ("ad", true), ("post-body", false), ("thread-header download-box", false),
        ("head-line", false), ("lead", false), ("", false), ("article-content main", false), ("more-from-author", true),
    ])
    func names(value: String, peripheral: Bool) {
        let bytes = Array(value.utf8)
        #expect(bytes.withUnsafeBufferPointer(ScanState.isPeripheral) == peripheral, "\(value)")
    }

    /// Each name marks a container wherever it stands in the value and in any case, up to the
    /// value's last byte.
    @Test func everyNameIsFoundAnywhere() {
        for name in ScanState.peripheralNames.map({ $0.description }) {
            for value in [name, "x-\(name.uppercased())", "box \(name)", "\(name.prefix(1).uppercased())\(name.dropFirst())-list"] {
                let bytes = Array(value.utf8)
                #expect(bytes.withUnsafeBufferPointer(ScanState.isPeripheral), "\(value)")
            }
            let cut = Array(name.utf8.dropLast())
            #expect(!cut.withUnsafeBufferPointer(ScanState.isPeripheral), "\(name) cut short")
        }
    }
}
