import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT) and SIGTERM for a command that stops cleanly: the first asks the work to
/// stop (`onFirst`), a second quits at once with exit code 130. While it is installed the
/// signals' default action (die mid-write) is off; ``remove()`` puts it back.
final class InterruptHandler {
    private let sources: [any DispatchSourceSignal]

    /// How many signals arrived, shared with the handlers on the signal queue.
    private final class Count: Sendable {
        let value = Mutex(0)
    }

    /// - Parameter onFirst: runs once, on the first signal (on a dispatch queue).
    init(onFirst: @escaping @Sendable () -> Void) {
        // A parent may have started us with these signals blocked (Foundation's Process does,
        // when it runs from a Swift task): unblock them, or Ctrl-C would never arrive.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        let queue = DispatchQueue(label: "trawl.interrupts")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signalNumber, queue: queue))
        }
        self.sources = sources
        let count = Count()
        for source in sources {
            source.setEventHandler {
                let seen = count.value.withLock { value -> Int in
                    value += 1
                    return value
                }
                if seen == 1 {
                    onFirst()
                } else {
                    Diagnostics.write("trawl: interrupted again: quitting now")
                    exit(ExitStatus.interrupted.rawValue)
                }
            }
            source.resume()
        }
    }

    /// Stops handling the signals: they kill the process again.
    func remove() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
