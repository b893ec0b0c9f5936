import ServiceLifecycle

/// The search sessions' part in the server's lifecycle: on graceful shutdown every session is
/// closed, so that its event streams end and the server's wait for open requests can.
struct SessionService: Service {
    let registry: SessionRegistry

    func run() async throws {
        // Returns at graceful shutdown, or throws CancellationError when cancelled outright.
        try? await gracefulShutdown()
        await registry.closeAll()
    }
}
