import Logging
import Testing

@testable import ServiceKit

/// `HeapTrimmer`'s decision: trim after work, once the process has gone quiet, never under load
/// and never again for the CPU of health checks alone.
@Suite struct HeapTrimmerTests {
    private let policy = HeapTrimmer.Policy()
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

    @Test func theProcessCPUTimeAdvancesWithWork() {
        let before = HeapTrimmer.processCPUTime()
        var sum: UInt64 = 0
        for value in 0..<5_000_000 as Range<UInt64> { sum &+= value &* value }
        #expect(sum != 0)
        #expect(HeapTrimmer.processCPUTime() > before)
    }

    @Test func theServiceStopsWhenCancelled() async throws {
        var trimmer = HeapTrimmer(logger: Logger(label: "test"))
        trimmer.interval = .milliseconds(10)
        let task = Task { [trimmer] in try await trimmer.run() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        try await task.value
    }
}
