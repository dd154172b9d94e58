import Foundation
import SystemThreads
import Testing

/// The Postgres reply loop and the log flusher run on threads of their own, named as `top -H`
/// and `perf` show them.
@Suite struct NamedThreadTests {
    @Test func theBodyRunsOnANewThreadThatCarriesTheName() async throws {
        let caller = try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
        let seen: String = await withCheckedContinuation { continuation in
            NamedThread.start(name: "test-thread") {
                continuation.resume(returning: (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable")
            }
        }
        #expect(seen == "test-thread\n")
        #expect(caller != seen)
    }

    @Test func aLongNameIsCutToTheKernelsFifteenBytes() async {
        let seen: String = await withCheckedContinuation { continuation in
            NamedThread.start(name: "a-name-longer-than-fifteen-bytes") {
                continuation.resume(returning: (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable")
            }
        }
        #expect(seen == "a-name-longer-t\n")
    }
}
