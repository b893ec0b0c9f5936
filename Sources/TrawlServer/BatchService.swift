import ServiceLifecycle

/// The batches' part in the server's lifecycle: resumes the batches a stopped server left
/// unfinished, and on graceful shutdown (SIGTERM, SIGINT) stops the running ones so that their
/// work in flight goes back to their stores.
///
/// While it runs it deletes expired batches: at start, then every ``sweepInterval``.
struct BatchService: Service {
    let manager: BatchManager
    var sweepInterval: Duration = .seconds(60)

    func run() async throws {
        await manager.resumeUnfinished()
        await manager.expire()
        // Sweeps until graceful shutdown (or outright cancellation) ends the sleep.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: sweepInterval) } catch { return }
                await manager.expire()
            }
        }
        await manager.shutdown()
    }
}
