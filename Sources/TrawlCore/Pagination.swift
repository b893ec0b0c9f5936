/// Where a page of results starts.
///
/// Only the engine knows what a value means; callers hand back the last ``ResultSet/next``
/// they got. ``token`` and ``init(token:)`` give a form to print and paste back
/// (`offset:25`, `cursor:CAgQ…`).
public enum Pagination: Sendable, Hashable, Codable, CustomStringConvertible {
    case offset(Int)
    case cursor(String)

    /// The first page.
    public static let start = Pagination.offset(0)

    /// A printable form that ``init(token:)`` reads back.
    public var token: String {
        switch self {
        case .offset(let n): "offset:\(n)"
        case .cursor(let c): "cursor:\(c)"
        }
    }

    /// Reads a ``token``; a bare number is an offset.
    public init?(token: String) {
        if token.hasPrefix("offset:"), let n = Int(token.dropFirst(7)), n >= 0 {
            self = .offset(n)
        } else if token.hasPrefix("cursor:"), token.count > 7 {
            self = .cursor(String(token.dropFirst(7)))
        } else if let n = Int(token), n >= 0 {
            self = .offset(n)
        } else {
            return nil
        }
    }

    public var description: String { token }
}
