import NIOCore
import NIOPosix
import Postgres
import ServiceProtocol
import TestSupport
import Testing

/// A caller that sent its statement from an event loop goes on on that loop once the reply is
/// read, not on whichever loop the services' executor would pick for a job enqueued by the reply
/// thread: an answer the caller then writes to a connection of its loop wakes no other loop.
@Suite struct ReplyLoopResumptionTests {
    @Test func aStatementSentFromAnEventLoopResumesItsCallerOnThatLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        let executor = EventLoopTaskExecutor(group: group)
        try await TestDatabase.withClient(poolSize: 2) { client in
            let sql = "SELECT $1::int AS n"
            // The first run prepares the statement on the thread pool; the next ones are sent at once.
            _ = try await client.query(sql, [.int(0)])
            for loop in group.makeIterator() {
                let sent = try await Self.send(10, of: sql, with: client, from: loop, executor: executor)
                #expect(sent.map(\.answer) == Array(1...10))
                #expect(sent.map(\.resumedOn) == Array(repeating: ObjectIdentifier(loop), count: 10))
            }
        }
        try await group.shutdownGracefully()
    }

    /// Runs `count` statements (`sql` with 1, 2, ...) in a task started on `loop` under `executor`,
    /// and says what each answered and on which loop the task was after it (nil: on none). The
    /// task runs outside the test's own, so the checks are the caller's.
    private static func send(
        _ count: Int, of sql: String, with client: PostgresClient, from loop: any EventLoop, executor: EventLoopTaskExecutor
    ) async throws -> [(answer: Int, resumedOn: ObjectIdentifier?)] {
        try await withCheckedThrowingContinuation { continuation in
            loop.execute {
                Task(executorPreference: executor) {
                    do {
                        var sent: [(answer: Int, resumedOn: ObjectIdentifier?)] = []
                        for value in 1...count {
                            let row = try await client.query(sql, [.int(value)])[0]
                            let answer = try row.decode("n", as: Int.self)
                            sent.append((answer, MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }))
                        }
                        continuation.resume(returning: sent)
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }
    }
}
