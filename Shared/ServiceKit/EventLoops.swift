import NIOCore
import NIOPosix

/// Where Swift Concurrency runs in every executable: on the NIO event loops, so there is no
/// thread hop per I/O event.
public enum EventLoops {
    /// How many of the CPUs a process may use (`System.coreCount` counts a cgroup quota and the
    /// affinity mask) its loops are by default.
    public enum Share: Sendable {
        /// Half, at least one: a backend shares its machine with the other services, Postgres
        /// and Redis; on 2 cores, one loop per backend switched threads far less than one per
        /// core and served more (docs/benchmarks.md).
        case half
        /// Every one: the gateway, which every request crosses and which alone answers what its
        /// caches hold (`GET /auth/me`, the revocation check); and `tokens`, whose work is
        /// mostly the RSA signature of each sign-in and refresh (about 210 µs of CPU): with one
        /// loop, a refresh load left part of the other core idle with `tokens` the limit
        /// (docs/benchmarks.md).
        case all
    }

    /// Installs NIO's singleton event-loop group as Swift Concurrency's global executor, with
    /// `EVENT_LOOP_THREADS` loops (1–256), by default `defaultCount(cores:share:)`. Call first
    /// thing in `main`: NIO takes the count once, before the loops exist. A bad value throws
    /// `ConfigurationError` before anything starts.
    public static func install(_ env: EnvironmentReader, share: Share = .half) throws {
        NIOSingletons.groupLoopCountSuggestion = try count(env, share: share)
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// `EVENT_LOOP_THREADS`, or the default for `cores` CPUs.
    static func count(_ env: EnvironmentReader, cores: Int = System.coreCount, share: Share = .half) throws -> Int {
        try env.int("EVENT_LOOP_THREADS", default: defaultCount(cores: cores, share: share), range: 1...256)
    }

    static func defaultCount(cores: Int, share: Share = .half) -> Int {
        switch share {
        case .half: max(1, cores / 2)
        case .all: max(1, cores)
        }
    }
}
