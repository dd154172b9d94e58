import ContentStateAPI
@testable import ContentStateService
import Foundation
import Postgres
import Synchronization
import TestSupport
import Testing

/// Each user's writes run a few statements at a time in the service (`StatementLine`, keyed by user), so a
/// busy user's writers wait there instead of each on a pool connection in Postgres, and the
/// writes that waited together go as one statement.
@Suite struct StatementLineTests {
    /// A line of numbered writes whose statements the test watches.
    typealias Line = StatementLine<UUID, Int, Int>

    @Test(arguments: [1, 2, 4])
    func aUsersStatementsRunAFewAtATimeAndTheWritesWaitingGoTogetherInTurn(atOnce: Int) async throws {
        let line = Line(statementsAtOnce: atOnce, callsPerStatement: 8)
        let user = UUID()
        let log = StatementLog()
        // The first writes hold their places until all the others wait behind them.
        let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
        var holders: [Task<Int, any Error>] = []
        for index in 0..<atOnce {
            holders.append(Task {
                try await line.run(index, for: user) { writes in
                    log.start(writes)
                    for await _ in gate { break }
                    log.end()
                    return writes.map { .success($0 * 10) }
                }
            })
            while line.calls(of: user).running < index + 1 { await Task.yield() }
        }
        var others: [Task<Int, any Error>] = []
        for index in atOnce..<(atOnce + 20) {
            others.append(Task {
                try await line.run(index, for: user) { writes in
                    log.start(writes)
                    try await Task.sleep(for: .milliseconds(1))
                    log.end()
                    return writes.map { .success($0 * 10) }
                }
            })
            // Each waits before the next comes, so their order is known.
            while line.calls(of: user).waiting < index - atOnce + 1 { await Task.yield() }
        }
        #expect(line.calls(of: user) == (atOnce, 20))
        for _ in 0..<atOnce { opened.yield() }
        for (index, task) in (holders + others).enumerated() {
            #expect(try await task.value == index * 10, "each write gets its own answer")
        }
        let final = log.snapshot
        #expect(final.most <= atOnce, "never more than \(atOnce) statements of one user at once")
        #expect(final.statements.prefix(atOnce).allSatisfy { $0.count == 1 }, "a write with a free place runs alone")
        #expect(final.statements.allSatisfy { $0.count <= 8 }, "at most writesPerStatement writes a statement")
        #expect(final.statements.flatMap { $0 }.sorted() == Array(0..<(atOnce + 20)), "every write ran once")
        #expect(final.statements.allSatisfy { $0 == $0.sorted() }, "a statement's writes in the order they came")
        #expect(final.statements.count < atOnce + 20, "writes that waited together went together")
        if atOnce == 1 {
            // One statement at a time: the writes ran in the order they came, the 20 waiting
            // ones in statements of 8, 8 and 4.
            #expect(final.statements.flatMap { $0 } == Array(0..<21))
            #expect(final.statements.map(\.count) == [1, 8, 8, 4])
        }
        #expect(line.busyKeys == 0, "the line is empty once every write ended")
    }

    /// The statements of a test: the writes of each, in the order they started, and the most
    /// that ran at once.
    final class StatementLog: Sendable {
        private let state = Mutex<(running: Int, most: Int, statements: [[Int]])>((0, 0, []))
        func start(_ writes: [Int]) {
            state.withLock { $0.running += 1; $0.most = max($0.most, $0.running); $0.statements.append(writes) }
        }
        func end() { state.withLock { $0.running -= 1 } }
        var snapshot: (running: Int, most: Int, statements: [[Int]]) { state.withLock { $0 } }
    }

    /// A write of `user` that holds its statement until `gate` yields.
    private func holding(_ line: Line, _ user: UUID, until gate: AsyncStream<Void>) -> Task<Int, any Error> {
        Task {
            try await line.run(0, for: user) { writes in
                for await _ in gate { break }
                return writes.map { .success($0) }
            }
        }
    }

    @Test func aStatementTakesTheWaitingWritesThatFitItsEntries() async throws {
        // Each write's entries are its number; at most 10 entries a statement.
        let line = Line(statementsAtOnce: 1, callsPerStatement: 16, entriesPerStatement: 10, entries: { $0 })
        let user = UUID()
        let log = StatementLog()
        let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
        let holder = holding(line, user, until: gate)
        while line.calls(of: user).running < 1 { await Task.yield() }
        var writers: [Task<Int, any Error>] = []
        for (index, entries) in [3, 4, 3, 12, 2].enumerated() {
            writers.append(Task {
                try await line.run(entries, for: user) { writes in
                    log.start(writes)
                    log.end()
                    return writes.map { .success($0) }
                }
            })
            while line.calls(of: user).waiting < index + 1 { await Task.yield() }
        }
        opened.yield()
        _ = try await holder.value
        for task in writers { _ = try await task.value }
        // 3 + 4 + 3 fit; 12 is more than a statement takes and runs alone; 2 follows.
        #expect(log.snapshot.statements == [[3, 4, 3], [12], [2]])
    }

    @Test func otherUsersWritesDoNotWait() async throws {
        let line = Line()
        let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
        let busyUser = UUID()
        let busy = (0..<line.statementsAtOnce).map { _ in holding(line, busyUser, until: gate) }
        while line.calls(of: busyUser).running < line.statementsAtOnce { await Task.yield() }
        // Would wait forever if the line were one for every user.
        let ran = try await line.run(7, for: UUID()) { writes in writes.map { .success($0) } }
        #expect(ran == 7)
        for _ in busy { opened.yield() }
        for task in busy { _ = try await task.value }
    }

    @Test func aFailedStatementFailsItsWritesAndHandsTheTurnOn() async throws {
        struct Refused: Error, Equatable { var write: Int? }
        let line = Line(statementsAtOnce: 1)
        let user = UUID()
        await #expect(throws: Refused()) {
            try await line.run(1, for: user) { _ in throw Refused() }
        }
        #expect(line.busyKeys == 0)

        // Three writes wait behind a fourth; their statement fails as a whole, then a statement
        // answers each write on its own.
        for failWhole in [true, false] {
            let (gate, opened) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
            let holder = holding(line, user, until: gate)
            while line.calls(of: user).running < 1 { await Task.yield() }
            var writers: [Task<Int, any Error>] = []
            for index in 1...3 {
                writers.append(Task {
                    try await line.run(index, for: user) { writes in
                        if failWhole { throw Refused() }
                        return writes.map { $0 == 2 ? .failure(Refused(write: 2)) : .success($0) }
                    }
                })
                while line.calls(of: user).waiting < index { await Task.yield() }
            }
            opened.yield()
            #expect(try await holder.value == 0)
            for (index, writer) in writers.enumerated() {
                let result = await writer.result
                if failWhole {
                    #expect(throws: Refused()) { try result.get() }
                } else if index + 1 == 2 {
                    #expect(throws: Refused(write: 2)) { try result.get() }
                } else {
                    #expect(try result.get() == index + 1)
                }
            }
            #expect(line.busyKeys == 0)
        }
        #expect(try await line.run(7, for: user) { writes in writes.map { .success($0) } } == 7)
    }

    @Test func aBusyUsersWritersHoldAFewConnectionsBetweenThem() async throws {
        let service = try await TestService.ownPool()
        let store = ContentStore(postgres: service.postgres, configuration: ContentStateConfiguration())
        let user = UUID()
        _ = try await store.write(user: user, items: [try ItemID(validating: "first")], .markRead)
        let writers = try await service.postgres.withTransaction { connection in
            // Hold the user's lock the way a writer does (another replica, say).
            try await connection.holdWriteLock(of: user)
            var writers: [Task<WriteOutcome, any Error>] = []
            for index in 0..<12 {
                writers.append(Task { try await store.write(user: user, items: [try ItemID(validating: "item-\(index)")], .markRead) })
            }
            // Every writer has reached the line: the ones with a place wait on the lock in
            // Postgres (each on a pool connection), the others in the service.
            let atOnce = store.writeLine.statementsAtOnce
            try await waitUntil("the 12 writes are in the line") {
                let calls = store.writeLine.calls(of: user)
                return calls.running + calls.waiting == 12
            }
            try await connection.untilABackendWaits(count: atOnce)
            #expect(store.writeLine.calls(of: user) == (atOnce, 12 - atOnce))
            let waiting = try await connection.backendsWaitingForThisTransaction()
            #expect(waiting == atOnce, "the user's statements with a place (\(atOnce)) wait in Postgres; the other writes wait in the service")
            #expect(atOnce <= 2)
            // The pool still serves everyone else.
            let other: FavoritesPage = try await service.call(ContentState.favoritesList, FavoritesListParams(userID: UUID()))
            #expect(other.items.isEmpty)
            return writers
        }
        for writer in writers { _ = try await writer.value }
        let rows = try await service.postgres.query(
            "SELECT version FROM content.item_states WHERE user_id = $1 ORDER BY version", [.uuid(user)])
        #expect(try rows.map { try $0.decode("version", as: Int.self) } == Array(1...13))
    }
}
