import Foundation

enum BrowserBenchmark {
    static func run(_ arguments: [String]) async throws {}
}
