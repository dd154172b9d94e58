import NIOCore
import Synchronization

/// The bookkeeping of a client's connections: at most `size` exist, idle ones are reused
/// newest first, and callers that find none free wait in arrival order.
/// Opening and closing happen outside the pool; it only decides who may do what.
///
/// A lock, not an actor: every statement leases and gives back a connection, and under the
/// services' task executor a hop into an actor and back is two enqueues of the task, where a
/// lock taken for a few instructions is none.
final class ConnectionPool: Sendable {
    /// What `acquire` grants: an idle connection, or the right to open a new one.
    enum Lease: Sendable {
        case connection(PostgresConnection)
        case openNew
    }

    /// A caller waiting for a connection, resumed by `release`, its deadline, or cancellation.
    struct Waiter {
        let id: Int
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Lease, any Error>
    }

    /// Whether the pool still lends connections.
    enum State {
        case running
        case shutDown
    }

    /// Everything the lock guards.
    struct Book {
        var state = State.running
        var idle: [PostgresConnection] = []
        /// Connections open, being opened, or lent out.
        var openCount = 0
        var waiters = CircularBuffer<Waiter>()
        var gauges = PoolGauges()
        var nextWaiterID = 0
        /// Whether the task that fails waiters past their deadline runs (only while someone waits).
        var sweeping = false

        mutating func reportUsage() {
            self.gauges.update(open: self.openCount, inUse: self.openCount - self.idle.count, waiting: self.waiters.count)
        }
    }

    let size: Int
    let acquireTimeout: Duration
    let book = Mutex(Book())

    init(size: Int, acquireTimeout: Duration) {
        self.size = max(1, size)
        self.acquireTimeout = acquireTimeout
    }

    /// Grants a connection or a slot to open one, waiting up to `acquireTimeout`.
    func acquire() async throws -> Lease {
        if let lease = try self.book.withLock({ book throws in try Self.grant(&book, size: self.size) }) { return lease }
        let id = self.book.withLock { book in
            book.nextWaiterID += 1
            return book.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let outcome = self.book.withLock { book -> Result<Lease, any Error>? in
                    guard !Task.isCancelled else { return .failure(CancellationError()) }
                    // A connection or a slot may have come free since the first look.
                    do {
                        if let lease = try Self.grant(&book, size: self.size) { return .success(lease) }
                    } catch {
                        return .failure(error)
                    }
                    book.waiters.append(Waiter(id: id, deadline: .now + self.acquireTimeout, continuation: continuation))
                    book.reportUsage()
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    self.startTimeoutSweeperIfNeeded()
                }
            }
        } onCancel: {
            self.removeWaiter(id, failingWith: CancellationError())
        }
    }

    /// An idle connection or a free slot, if there is one; throws once the pool is shut down.
    private static func grant(_ book: inout Book, size: Int) throws -> Lease? {
        guard book.state == .running else { throw PostgresError.clientShutDown }
        if let connection = book.idle.popLast() {
            book.reportUsage()
            return .connection(connection)
        }
        if book.openCount < size {
            book.openCount += 1
            book.reportUsage()
            return .openNew
        }
        return nil
    }

    /// Takes back a lent connection. Returns true when the caller must close it (it is
    /// broken, mid-transaction, or the pool is shut down); its slot then passes on.
    func release(_ connection: PostgresConnection, reusable: Bool) -> Bool {
        let (waiter, mustClose) = self.book.withLock { book -> (Waiter?, Bool) in
            defer { book.reportUsage() }
            guard reusable, book.state == .running else { return (Self.passSlot(&book), true) }
            if let waiter = book.waiters.popFirst() { return (waiter, false) }
            book.idle.append(connection)
            return (nil, false)
        }
        if mustClose {
            waiter?.continuation.resume(returning: .openNew)
        } else {
            waiter?.continuation.resume(returning: .connection(connection))
        }
        return mustClose
    }

    /// Gives up a slot whose connection failed to open or was closed; the first waiter
    /// gets the right to open a new one.
    func releaseSlot() {
        let waiter = self.book.withLock { book -> Waiter? in
            defer { book.reportUsage() }
            return Self.passSlot(&book)
        }
        waiter?.continuation.resume(returning: .openNew)
    }

    /// The waiter a freed slot passes to, or nil when none waits (the slot is then gone).
    private static func passSlot(_ book: inout Book) -> Waiter? {
        if book.state == .running, let waiter = book.waiters.popFirst() { return waiter }
        book.openCount -= 1
        return nil
    }

    /// Stops lending: fails every waiter and returns the idle connections for closing.
    /// Lent connections are closed as they come back.
    func shutDown() -> [PostgresConnection] {
        let (waiters, closing) = self.book.withLock { book -> ([Waiter], [PostgresConnection]) in
            defer { book.reportUsage() }
            book.state = .shutDown
            let waiters = Array(book.waiters)
            book.waiters.removeAll()
            let closing = book.idle
            book.openCount -= closing.count
            book.idle = []
            return (waiters, closing)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: PostgresError.clientShutDown) }
        return closing
    }

    func removeWaiter(_ id: Int, failingWith error: any Error) {
        let waiter = self.book.withLock { book -> Waiter? in
            guard let index = book.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            defer { book.reportUsage() }
            return book.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }
}
