import CHiredis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One blocking hiredis connection, authenticated and on its database; over TLS when the URL
/// is `rediss://` (then `RedisTLSStream` moves the bytes and hiredis formats and parses).
///
/// Every call blocks, so it must run on a thread-pool thread, never on Swift's cooperative
/// pool. It is used by one thread at a time (the pool hands it over under a lock), hence
/// `@unchecked Sendable`. After an I/O error it is `isBroken` and must be dropped.
final class RedisConnection: @unchecked Sendable {
    private let context: UnsafeMutablePointer<redisContext>
    let commandTimeout: Duration
    /// The TLS session of a `rediss://` connection.
    private(set) var tls: RedisTLSStream?
    /// Why a TLS connection broke, for the pool's log line (hiredis's `errstr` knows nothing of it).
    private var tlsFailure: RedisError?
    private(set) var isBroken = false

    /// Connects, applies `commandTimeout` to reads and writes, runs the TLS handshake when the URL
    /// is `rediss://` (with `tlsContext`), then sends AUTH and SELECT as the URL asks.
    init(url: RedisURL, tlsContext: RedisTLSContext?, connectTimeout: Duration, commandTimeout: Duration) throws(RedisError) {
        guard let context = redisConnectWithTimeout(url.host, Int32(url.port), timeval(connectTimeout)) else {
            throw .connectionFailed("cannot allocate a hiredis context")
        }
        self.context = context
        self.commandTimeout = commandTimeout
        if context.pointee.err != 0 {
            throw .connectionFailed("cannot connect to \(url.host):\(url.port): \(errorText)")
        }
        guard redisSetTimeout(context, timeval(commandTimeout)) == REDIS_OK else {
            throw .connectionFailed("cannot set the socket timeout: \(errorText)")
        }
        _ = redisEnableKeepAlive(context)
        if url.tls {
            guard let tlsContext else { throw .connectionFailed("rediss:// needs TLS settings (REDIS_TLS_CA_FILE)") }
            tls = try RedisTLSStream(socket: context.pointee.fd, context: tlsContext, host: url.host, timeout: connectTimeout)
        }
        try prepareSession(url)
    }

    /// AUTH and SELECT as the URL asks; any failure, error reply included, is `.connectionFailed`.
    private func prepareSession(_ url: RedisURL) throws(RedisError) {
        func run(_ arguments: [String], _ what: String) throws(RedisError) {
            let reply: RedisValue
            do {
                reply = try execute(RedisCommand(arguments))
            } catch {
                throw .connectionFailed("\(what) failed on \(url.host):\(url.port): \(error)")
            }
            if case .error(let message) = reply {
                throw .connectionFailed("\(what) failed on \(url.host):\(url.port): \(message)")
            }
        }
        if let password = url.password {
            try run(["AUTH"] + (url.username.map { [$0] } ?? []) + [password], "authentication")
        }
        if url.database != 0 {
            try run(["SELECT", String(url.database)], "selecting database \(url.database)")
        }
    }

    deinit {
        tls = nil  // before the socket closes
        redisFree(context)
    }

    /// Sends one command and waits for its reply; an error reply comes back as `.error`.
    func execute(_ command: RedisCommand) throws(RedisError) -> RedisValue {
        guard !isBroken else { throw .connectionLost }
        if let tls { return try overTLS { () throws(RedisError) in try exchange([command], over: tls)[0] } }
        let reply = command.withArgv { argc, argv, lengths in
            redisCommandArgv(context, argc, argv, lengths)
        }
        guard let reply else { throw failure() }
        defer { freeReplyObject(reply) }
        return try RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self))
    }

    /// Writes every command, then reads the replies in order: one round trip.
    func pipeline(_ commands: [RedisCommand]) throws(RedisError) -> [RedisValue] {
        guard !isBroken else { throw .connectionLost }
        if let tls { return try overTLS { () throws(RedisError) in try exchange(commands, over: tls) } }
        for command in commands {
            let appended = command.withArgv { argc, argv, lengths in
                redisAppendCommandArgv(context, argc, argv, lengths)
            }
            guard appended == REDIS_OK else { throw failure() }
        }
        var replies: [RedisValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var reply: UnsafeMutableRawPointer?
            guard redisGetReply(context, &reply) == REDIS_OK, let reply else { throw failure() }
            defer { freeReplyObject(reply) }
            replies.append(try RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self)))
        }
        return replies
    }

    /// True when an idle connection has something to read: the server closed it (EOF,
    /// e.g. after a restart) or sent bytes nobody asked for. Either way it is unusable.
    var hasPendingInput: Bool {
        if let tls { return tls.hasPendingInput }
        var descriptor = pollfd(fd: context.pointee.fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) != 0
    }

    /// Runs `body` over the TLS session; any failure breaks the connection (a session cannot
    /// resume in the middle of a reply).
    func overTLS<Result>(_ body: () throws(RedisError) -> Result) throws(RedisError) -> Result {
        do {
            return try body()
        } catch {
            isBroken = true
            tlsFailure = error
            throw error
        }
    }

    /// Marks the connection broken and turns hiredis's error into a `RedisError`.
    /// A socket timeout shows up as an I/O error with `EAGAIN`.
    func failure() -> RedisError {
        let savedErrno = errno
        isBroken = true
        switch context.pointee.err {
        case REDIS_ERR_IO where savedErrno == EAGAIN || savedErrno == EWOULDBLOCK:
            return .timeout
        case REDIS_ERR_PROTOCOL:
            return .protocolError(errorText)
        default:
            return .connectionLost
        }
    }

    /// hiredis's description of the last error (never contains command arguments).
    var errorText: String {
        if let tlsFailure { return "\(tlsFailure)" }
        return withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    var fileDescriptor: Int32 { context.pointee.fd }
    var rawContext: UnsafeMutablePointer<redisContext> { context }
}

extension timeval {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
