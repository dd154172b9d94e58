import NIOCore

/// The bookkeeping of a client's connections: at most `size` exist, idle ones are reused
/// newest first, and callers that find none free wait in arrival order.
/// Opening and closing happen outside the actor; it only decides who may do what.
actor ConnectionPool {
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

    let size: Int
    let acquireTimeout: Duration
    private(set) var state = State.running
    private(set) var idle: [PostgresConnection] = [] { didSet { self.reportUsage() } }
    /// Connections open, being opened, or lent out.
    private(set) var openCount = 0 { didSet { self.reportUsage() } }
    var waiters = CircularBuffer<Waiter>() { didSet { self.reportUsage() } }
    var gauges = PoolGauges()
    private var nextWaiterID = 0
    /// Fails waiters whose deadline passed; runs only while someone waits.
    var timeoutSweeper: Task<Void, Never>?

    init(size: Int, acquireTimeout: Duration) {
        self.size = max(1, size)
        self.acquireTimeout = acquireTimeout
    }

    /// Grants a connection or a slot to open one, waiting up to `acquireTimeout`.
    func acquire() async throws -> Lease {
        guard state == .running else { throw PostgresError.clientShutDown }
        if let connection = idle.popLast() { return .connection(connection) }
        if openCount < size {
            openCount += 1
            return .openNew
        }
        let id = nextWaiterID
        nextWaiterID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiters.append(Waiter(id: id, deadline: .now + acquireTimeout, continuation: continuation))
                startTimeoutSweeperIfNeeded()
            }
        } onCancel: {
            Task { await self.removeWaiter(id, failingWith: CancellationError()) }
        }
    }

    /// Takes back a lent connection. Returns true when the caller must close it (it is
    /// broken, mid-transaction, or the pool is shut down); its slot then passes on.
    func release(_ connection: PostgresConnection, reusable: Bool) -> Bool {
        guard reusable, state == .running else {
            releaseSlot()
            return true
        }
        if let waiter = waiters.popFirst() {
            waiter.continuation.resume(returning: .connection(connection))
        } else {
            idle.append(connection)
        }
        return false
    }

    /// Gives up a slot whose connection failed to open or was closed; the first waiter
    /// gets the right to open a new one.
    func releaseSlot() {
        if state == .running, let waiter = waiters.popFirst() {
            waiter.continuation.resume(returning: .openNew)
        } else {
            openCount -= 1
        }
    }

    /// Stops lending: fails every waiter and returns the idle connections for closing.
    /// Lent connections are closed as they come back.
    func shutDown() -> [PostgresConnection] {
        state = .shutDown
        timeoutSweeper?.cancel()
        while let waiter = waiters.popFirst() {
            waiter.continuation.resume(throwing: PostgresError.clientShutDown)
        }
        let closing = idle
        openCount -= idle.count
        idle = []
        return closing
    }

    func removeWaiter(_ id: Int, failingWith error: any Error) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: error)
    }
}
