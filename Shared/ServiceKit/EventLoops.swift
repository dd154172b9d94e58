import NIOCore
import NIOPosix

/// Where Swift Concurrency runs in every executable: on the NIO event loops, so there is no
/// thread hop per I/O event.
public enum EventLoops {
    /// Installs NIO's singleton event-loop group as Swift Concurrency's global executor, with
    /// `EVENT_LOOP_THREADS` loops (1–256), by default `defaultCount()`. Call first thing in
    /// `main`: NIO takes the count once, before the loops exist. A bad value throws
    /// `ConfigurationError` before anything starts.
    public static func install(_ env: EnvironmentReader) throws {
        NIOSingletons.groupLoopCountSuggestion = try count(env)
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// `EVENT_LOOP_THREADS`, or the default for `cores` CPUs.
    static func count(_ env: EnvironmentReader, cores: Int = System.coreCount) throws -> Int {
        try env.int("EVENT_LOOP_THREADS", default: defaultCount(cores: cores), range: 1...256)
    }

    /// Half the CPUs this process may use (`System.coreCount` counts a cgroup quota and the
    /// affinity mask), at least one. A service shares its machine with the others, Postgres and
    /// Redis; on 2 cores, one loop per service switched threads far less than one per core and
    /// served more (docs/benchmarks.md); a host of its own with many cores still gets many loops.
    static func defaultCount(cores: Int) -> Int {
        max(1, cores / 2)
    }
}
