import ServiceLifecycle

/// The batches' part in the server's lifecycle: resumes the batches a stopped server left
/// unfinished, and on graceful shutdown (SIGTERM, SIGINT) stops the running ones so that their
/// work in flight goes back to their stores.
struct BatchService: Service {
    let manager: BatchManager

    func run() async throws {
        await manager.resumeUnfinished()
        // Returns at graceful shutdown, or throws CancellationError when cancelled outright.
        try? await gracefulShutdown()
        await manager.shutdown()
    }
}
