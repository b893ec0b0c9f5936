import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Proof that this process is the only run working a store: an exclusive `flock` on
/// `STORE.lock`, held as long as the value lives. The kernel drops it when the process dies,
/// however it dies, so a new run can tell that jobs left `running` belong to a dead run.
public final class RunLock: Sendable {
    public let path: String
    private let descriptor: Int32

    /// Takes the lock for the store at `storePath`.
    /// - Throws: ``StoreError`` when another live run holds it.
    public init(storePath: String) throws {
        path = storePath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StoreError(.lockFailed, path: storePath, message: "cannot create lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var holder = ""
            if let text = try? String(contentsOfFile: path, encoding: .utf8), !text.isEmpty {
                holder = " (pid \(text.trimmingCharacters(in: .whitespacesAndNewlines)))"
            }
            close(fd)
            throw StoreError(.locked, path: storePath, message: "another trawl batch is working this store\(holder)")
        }
        ftruncate(fd, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }
}
