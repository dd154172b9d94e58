import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An exclusive `flock` on a lock file, shared by every process that opens the same file (an
/// app and its extension, two command-line tools): the token stores hold it while a client
/// refreshes, so two processes never rotate the same refresh token. The kernel releases it
/// when the holder exits, however it exits.
enum FileLock {
    /// Runs `body` holding the lock on `file` (created 0600 if missing). The wait for another
    /// process happens on a thread of its own, never on the caller's.
    static func withLock<T: Sendable>(_ file: URL, _ body: @Sendable () async throws -> T) async throws -> T {
        let descriptor = try await Self.acquire(file)
        defer {
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
        }
        return try await body()
    }

    private static func acquire(_ file: URL) async throws -> Int32 {
        let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return descriptor }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var result: Int32
                repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
                if result == 0 {
                    continuation.resume(returning: descriptor)
                } else {
                    let failure = errno
                    close(descriptor)
                    continuation.resume(throwing: POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO))
                }
            }
        }
    }
}
