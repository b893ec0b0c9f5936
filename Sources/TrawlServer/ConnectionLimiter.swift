import NIOCore
import Synchronization
import TrawlFetch

/// Open connections per client: one over ``perClient`` is closed as soon as it is accepted, so
/// that one client cannot hold every socket of the server (a slow-headers attack opens many and
/// keeps each alive). Connections from a trusted proxy are not counted: every client behind it
/// shares its address.
final class ConnectionLimiter: Sendable {
    let perClient: Int
    let trustedProxies: [AddressRange]
    private let open = Mutex<[String: Int]>([:])

    init(perClient: Int, trustedProxies: [AddressRange]) {
        self.perClient = max(1, perClient)
        self.trustedProxies = trustedProxies
    }

    /// Counts a new connection from the client `peer` (a ``ClientKey``); `false` when that
    /// client is at its cap (nothing is counted then).
    func open(_ peer: String) -> Bool {
        return open.withLock { open in
            guard open[peer, default: 0] < perClient else { return false }
            open[peer, default: 0] += 1
            return true
        }
    }

    /// A connection ``open(_:)`` counted has closed.
    func close(_ peer: String) {
        open.withLock { open in
            let remaining = open[peer, default: 1] - 1
            open[peer] = remaining > 0 ? remaining : nil
        }
    }

    /// Connections counted now, for tests and `/metrics`.
    var count: Int { open.withLock { $0.values.reduce(0, +) } }

    /// The handler for one connection's pipeline.
    func handler() -> Handler { Handler(limiter: self) }

    /// Counts its connection while it is open; closes it at once when its client is over the cap.
    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        // Reads pass through untouched (the default `channelRead` forwards them).
        typealias InboundIn = NIOAny
        let limiter: ConnectionLimiter
        private var counted: String?

        init(limiter: ConnectionLimiter) {
            self.limiter = limiter
        }

        func handlerAdded(context: ChannelHandlerContext) {
            guard context.channel.isActive else { return }
            admit(context)
        }

        func channelActive(context: ChannelHandlerContext) {
            if counted == nil { admit(context) }
            context.fireChannelActive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            release()
        }

        func channelInactive(context: ChannelHandlerContext) {
            release()
            context.fireChannelInactive()
        }

        private func admit(_ context: ChannelHandlerContext) {
            // A trusted proxy's connections carry many clients: not counted.
            if let text = context.channel.remoteAddress?.ipAddress, let address = IPAddress(literal: text),
                limiter.trustedProxies.contains(where: { $0.contains(address) })
            {
                return
            }
            let peer = context.channel.remoteAddress?.ipAddress.map { ClientKey.of($0) } ?? "local"
            if limiter.open(peer) {
                counted = peer
            } else {
                context.close(promise: nil)
            }
        }

        private func release() {
            guard let peer = counted else { return }
            counted = nil
            limiter.close(peer)
        }
    }
}

@available(*, unavailable)
extension ConnectionLimiter.Handler: Sendable {}
