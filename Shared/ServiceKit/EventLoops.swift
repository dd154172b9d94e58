import NIOCore
import NIOPosix

/// Where Swift Concurrency runs in every executable: on the NIO event loops, so there is no
/// thread hop per I/O event.
public enum EventLoops {
    /// Installs NIO's singleton event-loop group as Swift Concurrency's global executor, with
    /// `EVENT_LOOP_THREADS` loops (1–256; default one per core). On a small machine shared with
    /// Postgres and the other services, fewer threads switch less. Call first thing in `main`:
    /// NIO takes the count once, before the loops exist, and refuses it after a read, so it is
    /// only set when the variable is. A bad value throws `ConfigurationError` before anything starts.
    public static func install(_ env: EnvironmentReader) throws {
        if env.optional("EVENT_LOOP_THREADS") != nil {
            NIOSingletons.groupLoopCountSuggestion = try env.int("EVENT_LOOP_THREADS", default: 1, range: 1...256)
        }
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
