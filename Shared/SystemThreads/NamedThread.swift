import CGlibcExtras
#if canImport(Glibc)
import Glibc
#endif

/// A thread of the process's own, outside NIO's event loops and Swift's cooperative pool, for
/// a loop that blocks in the kernel (the Postgres reply loop's `epoll_wait`, the log flusher's
/// wait): a detached POSIX thread, named as `top -H`, `perf` and /proc show it.
public enum NamedThread {
    /// Starts `body` on a new detached thread named `name` (the kernel keeps 15 bytes); the
    /// thread ends when `body` returns.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            _ = latchkey_name_current_thread(start.name)
            start.body()
            return nil
        }, start)
        precondition(result == 0, "pthread_create failed with \(result)")
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
