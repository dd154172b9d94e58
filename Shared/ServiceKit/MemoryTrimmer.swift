import CGlibcExtras
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceLifecycle
import Synchronization

/// Gives memory back once the process has gone quiet: the pages only its start ran, once, and
/// the heap's free pages after each burst of work.
///
/// The start: at the first quiet second, the process releases its mapping of the clean pages of
/// its executable and libraries (`FileMappings.releaseCleanPages()`); what serving runs is
/// mapped again as it runs, and the start's code (configuration, connecting, migrating, every
/// lazy initialisation) stays out.
///
/// The heap: glibc keeps what a burst of requests freed: up to 1 MiB at the top of each heap (the
/// launchers' `trim_threshold`, so that the next request does not fault those pages in again)
/// and every free page between blocks still in use, which it never returns on its own. After a
/// burst of 64 connections the gateway held 3.5 MB free in its heaps for 2.9 MB in use, and kept
/// it through any quiet that followed. Once a second this reads the process's CPU time; when the
/// last second used less than `quietCPU` and the process has used at least `workCPU` since its
/// last trim, it calls `malloc_trim(0)`, which unmaps every whole free page of every heap (1–3.5
/// ms for an 8 MB heap in pieces, at a moment nothing else runs). Under load it never trims, so the
/// heaps keep their pages for the requests; a process that only answers health checks does not
/// trim again and again.
public struct MemoryTrimmer: Service {
    /// How long the CPU time is watched between decisions.
    public var interval: Duration = .seconds(1)
    public var policy = Policy()
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// When to give memory back, from the process's CPU time (nanoseconds).
    public struct Policy: Sendable, Equatable {
        /// A second that used less CPU than this is quiet (0.5 % of a processor).
        public var quietCPU: UInt64 = 5_000_000
        /// The work since the last trim that makes a trim worth it (a tenth of a second of CPU:
        /// enough requests to have grown the heaps).
        public var workCPU: UInt64 = 100_000_000

        public init() {}

        /// Whether to trim now, given the CPU time at the last trim (or at start), at the last
        /// look, and now.
        public func shouldTrim(atLastTrim: UInt64, atLastLook: UInt64, now: UInt64) -> Bool {
            let lastInterval = now &- atLastLook
            let sinceTrim = atLastLook &- atLastTrim
            return lastInterval < self.quietCPU && sinceTrim >= self.workCPU
        }

        /// Whether to release the start's pages now: the first quiet second, once.
        public func shouldReleaseStartPages(released: Bool, atLastLook: UInt64, now: UInt64) -> Bool {
            !released && now &- atLastLook < self.quietCPU
        }
    }

    public func run() async throws {
        let atStart = Self.processCPUTime()
        // The CPU time at the last trim (or at start) and at the last look; whether the start's
        // pages were released.
        let looks = Mutex((atLastTrim: atStart, atLastLook: atStart, startReleased: false))
        await everyInterval(self.interval, logger: self.logger, failure: "Memory trim failed") {
            let now = Self.processCPUTime()
            let released: Int? = looks.withLock { looks in
                var released: Int? = nil
                if self.policy.shouldReleaseStartPages(released: looks.startReleased, atLastLook: looks.atLastLook, now: now) {
                    released = FileMappings.releaseCleanPages()
                    looks.startReleased = true
                }
                if self.policy.shouldTrim(atLastTrim: looks.atLastTrim, atLastLook: looks.atLastLook, now: now) {
                    Self.trim()
                    // The trim's own CPU counts as neither work nor quiet.
                    let after = Self.processCPUTime()
                    (looks.atLastTrim, looks.atLastLook) = (after, after)
                } else {
                    looks.atLastLook = released == nil ? now : Self.processCPUTime()
                }
                return released
            }
            if let released {
                self.logger.info("Released the start's file pages", metadata: ["bytes": "\(released)"])
            }
        }
    }

    /// Returns every whole free page of every heap to the system.
    public static func trim() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }

    /// The CPU time of every thread of the process so far, in nanoseconds.
    static func processCPUTime() -> UInt64 {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
