import CHiredis

/// The request path of a `rediss://` connection: hiredis formats the commands and parses the
/// replies, `RedisTLSStream` carries the bytes. One deadline (`commandTimeout`) covers the
/// writes and every reply of one exchange, as the socket timeouts do for a plain connection.
extension RedisConnection {
    /// Writes `commands` in one go and reads their replies in order: one round trip.
    func exchange(_ commands: [RedisCommand], over tls: RedisTLSStream) throws(RedisError) -> [RedisValue] {
        let deadline = ContinuousClock.now + commandTimeout
        try write(commands, over: tls, until: deadline)
        var replies: [RedisValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            guard let reply = try nextReply(over: tls, until: deadline) else { throw .timeout }
            replies.append(reply)
        }
        return replies
    }

    /// Formats `commands` as RESP into one buffer and writes it by `deadline`.
    func write(_ commands: [RedisCommand], over tls: RedisTLSStream, until deadline: ContinuousClock.Instant) throws(RedisError) {
        var bytes: [UInt8] = []
        for command in commands {
            var formatted: UnsafeMutablePointer<CChar>?
            let length = command.withArgv { argc, argv, lengths in
                redisFormatCommandArgv(&formatted, argc, argv, lengths)
            }
            guard length >= 0, let formatted else { throw .protocolError("cannot format a command") }
            defer { redisFreeCommand(formatted) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: formatted, count: Int(length)))
        }
        // `withUnsafeBytes` rethrows untyped errors: the failure comes out as a value instead.
        let failure: RedisError? = bytes.withUnsafeBytes { raw in
            do throws(RedisError) {
                try tls.write(raw, until: deadline)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// The next whole reply, reading from the session as needed; nil when `deadline` passed
    /// or `wake` became readable first (bytes of a partial reply stay in the reader for the
    /// next call).
    func nextReply(
        over tls: RedisTLSStream, until deadline: ContinuousClock.Instant, wakingOn wake: Int32 = -1
    ) throws(RedisError) -> RedisValue? {
        while true {
            var reply: UnsafeMutableRawPointer?
            guard redisGetReplyFromReader(rawContext, &reply) == REDIS_OK else { throw failure() }
            if let reply {
                defer { freeReplyObject(reply) }
                return try RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self))
            }
            guard try tls.feed(rawContext.pointee.reader, until: deadline, wakingOn: wake) else { return nil }
        }
    }
}
