import Logging
import Testing

@testable import ServiceKit

/// `MemoryTrimmer`'s decisions: trim after work, once the process has gone quiet, never under load
/// and never again for the CPU of health checks alone; release the start's pages at the first quiet
/// second, once.
@Suite struct MemoryTrimmerTests {
    private let policy = MemoryTrimmer.Policy()
    private let ms: UInt64 = 1_000_000

    @Test func aQuietSecondAfterWorkTrims() {
        #expect(self.policy.shouldTrim(atLastTrim: 0, atLastLook: 300 * self.ms, now: 301 * self.ms))
    }

    @Test func aBusySecondDoesNotTrim() {
        #expect(!self.policy.shouldTrim(atLastTrim: 0, atLastLook: 300 * self.ms, now: 600 * self.ms))
        #expect(!self.policy.shouldTrim(atLastTrim: 0, atLastLook: 300 * self.ms, now: 305 * self.ms))
    }

    @Test func littleWorkSinceTheLastTrimDoesNotTrim() {
        // Health checks and metrics scrapes: quiet seconds, and under a tenth of a second of CPU
        // since the last trim.
        #expect(!self.policy.shouldTrim(atLastTrim: 1_000 * self.ms, atLastLook: 1_099 * self.ms, now: 1_100 * self.ms))
        #expect(self.policy.shouldTrim(atLastTrim: 1_000 * self.ms, atLastLook: 1_100 * self.ms, now: 1_101 * self.ms))
    }

    @Test func theStartsPagesGoAtTheFirstQuietSecondOnly() {
        // Still starting (a busy second): not yet.
        #expect(!self.policy.shouldReleaseStartPages(released: false, atLastLook: 0, now: 40 * self.ms))
        #expect(self.policy.shouldReleaseStartPages(released: false, atLastLook: 40 * self.ms, now: 41 * self.ms))
        // Once released, never again, however quiet.
        #expect(!self.policy.shouldReleaseStartPages(released: true, atLastLook: 40 * self.ms, now: 40 * self.ms))
    }

    @Test func theProcessCPUTimeAdvancesWithWork() {
        let before = MemoryTrimmer.processCPUTime()
        var sum: UInt64 = 0
        for value in 0..<5_000_000 as Range<UInt64> { sum &+= value &* value }
        #expect(sum != 0)
        #expect(MemoryTrimmer.processCPUTime() > before)
    }

    @Test func theServiceStopsWhenCancelled() async throws {
        var trimmer = MemoryTrimmer(logger: Logger(label: "test"))
        trimmer.interval = .milliseconds(10)
        let task = Task { [trimmer] in try await trimmer.run() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        try await task.value
    }
}
