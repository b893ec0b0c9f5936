package import Foundation

/// The `Retry-After` field (RFC 9110 §10.2.3): delay-seconds or an HTTP date.
package enum RetryAfter {
    /// How long `value` asks to wait from `now`; `nil` when absent or unreadable. A date in the
    /// past means no wait.
    package static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return seconds >= 0 && seconds.isFinite ? .seconds(seconds) : nil }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}
