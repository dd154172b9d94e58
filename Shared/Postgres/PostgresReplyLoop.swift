import CLibPQ
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix
import Synchronization
import SystemThreads

/// One thread that waits, with epoll, for the replies to statements sent on any connection of
/// a client, so that a statement costs its caller a send and a resumption, with no thread
/// hand-off before it and no thread blocked while the server works. Under load one wake-up
/// serves the replies of several connections.
///
/// `await` registers the connection's socket (one-shot: re-armed while a reply is incomplete);
/// the loop reads the reply under the connection's lock and resumes the caller on the event
/// loop it sent from. `stop()` ends the thread once no statement waits any more.
///
/// A lock, not an actor: every query's reply is handed over here between its thread and its caller.
final class PostgresReplyLoop: Sendable {
    private struct Waiting {
        let connection: PostgresConnection
        var statement: StatementInFlight
        let continuation: CheckedContinuation<Result<StatementOutcome, PostgresError>, Never>
        /// The event loop the statement was sent from (nil off the loops), where its caller goes on.
        let loop: (any EventLoop)?
    }

    private struct State {
        var waiting: [Int32: Waiting] = [:]
        var stopping = false
        var exited = false
    }

    private let epoll: Int32
    private let wakeup: Int32
    private let state = Mutex(State())

    /// Nil when the system refuses an epoll instance or an eventfd (then statements use the pool).
    init?() {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC))
        guard epoll >= 0, wakeup >= 0 else {
            if epoll >= 0 { close(epoll) }
            if wakeup >= 0 { close(wakeup) }
            return nil
        }
        self.epoll = epoll
        self.wakeup = wakeup
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = self.wakeup
        _ = epoll_ctl(self.epoll, EPOLL_CTL_ADD, self.wakeup, &event)
        NamedThread.start(name: "pg-replies") { [self] in self.run() }
    }

    deinit {
        close(self.epoll)
        close(self.wakeup)
    }

    /// Waits for the reply to `statement`, just sent on `connection`'s `socket`.
    func reply(
        to statement: StatementInFlight, on connection: PostgresConnection, socket: Int32
    ) async -> Result<StatementOutcome, PostgresError> {
        let loop = MultiThreadedEventLoopGroup.currentEventLoop
        return await withCheckedContinuation { continuation in
            let registered = self.state.withLock { state in
                guard !state.exited else { return false }
                state.waiting[socket] = Waiting(connection: connection, statement: statement, continuation: continuation, loop: loop)
                return true
            }
            guard registered else {
                // Nobody reads any more; the connection, busy with an unread reply, is closed on release.
                continuation.resume(returning: .failure(.clientShutDown))
                return
            }
            if !self.arm(socket) { self.fail(socket) }
        }
    }

    /// Ends the thread once every statement still waiting has its reply.
    func stop() {
        self.state.withLock { $0.stopping = true }
        var one: UInt64 = 1
        _ = write(self.wakeup, &one, 8)
    }

    /// Asks for one readiness event of `socket` (registering it if epoll does not know it yet:
    /// a new connection, or a reopened one on a new socket).
    /// False if epoll refuses the socket (then no event would ever come for it).
    private func arm(_ socket: Int32) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLONESHOT.rawValue
        event.data.fd = socket
        if epoll_ctl(self.epoll, EPOLL_CTL_MOD, socket, &event) == 0 { return true }
        return epoll_ctl(self.epoll, EPOLL_CTL_ADD, socket, &event) == 0
    }

    /// Fails the statement waiting on `socket`: its reply cannot be waited for. The connection,
    /// left busy, is closed when it goes back to the pool.
    private func fail(_ socket: Int32) {
        let waiting = self.state.withLock { $0.waiting.removeValue(forKey: socket) }
        waiting?.continuation.resume(returning: .failure(.connectionLost))
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(self.epoll, $0.baseAddress, 64, -1) }
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 0..<Int(count) {
                let socket = events[index].data.fd
                if socket == self.wakeup {
                    var value: UInt64 = 0
                    _ = read(self.wakeup, &value, 8)
                } else {
                    self.readReply(on: socket)
                }
            }
            let exit = self.state.withLock { state in
                guard state.stopping, state.waiting.isEmpty else { return false }
                state.exited = true
                return true
            }
            if exit { return }
        }
        // epoll itself failed: fail whoever waits (their connections are then closed on release).
        let stranded = self.state.withLock { state in
            state.exited = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        for waiting in stranded { waiting.continuation.resume(returning: .failure(.connectionLost)) }
    }

    private func readReply(on socket: Int32) {
        guard var waiting = self.state.withLock({ $0.waiting[socket] }) else { return }
        let outcome = waiting.connection.receive(&waiting.statement)
        guard let outcome else {
            self.state.withLock { $0.waiting[socket] = waiting }
            if !self.arm(socket) { self.fail(socket) }
            return
        }
        self.state.withLock { _ = $0.waiting.removeValue(forKey: socket) }
        Self.resume(waiting, with: outcome)
    }

    /// Resumes the caller on the loop it sent from. Resumed from this thread, the services'
    /// executor would run it on any loop (`EventLoopTaskExecutor`), and an answer written to a
    /// connection of the other loop would wake that one too: two wake-ups of the process instead
    /// of one, which is what a request pays when the loops sleep between requests.
    private static func resume(_ waiting: Waiting, with outcome: Result<StatementOutcome, PostgresError>) {
        let continuation = waiting.continuation
        guard let loop = waiting.loop else {
            continuation.resume(returning: outcome)
            return
        }
        loop.execute { continuation.resume(returning: outcome) }
    }
}
