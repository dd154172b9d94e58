import CHiredis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RedisConnection {
    /// Writes a command without waiting for its reply (pub/sub mode has no one-to-one replies).
    func send(_ command: RedisCommand) throws(RedisError) {
        guard !isBroken else { throw .connectionLost }
        if let tls {
            let deadline = ContinuousClock.now + commandTimeout
            return try overTLS { () throws(RedisError) in try write([command], over: tls, until: deadline) }
        }
        let appended = command.withArgv { argc, argv, lengths in
            redisAppendCommandArgv(rawContext, argc, argv, lengths)
        }
        guard appended == REDIS_OK else { throw failure() }
        var done: Int32 = 0
        repeat {
            guard redisBufferWrite(rawContext, &done) == REDIS_OK else { throw failure() }
        } while done == 0
    }

    /// The next pushed reply, or nil when none arrived within `milliseconds` or `wake` (a
    /// descriptor polled beside the socket, -1 for none) became readable: a reader thread waits
    /// here for the server or for whoever stops it, never in slices.
    ///
    /// Waits with `poll` instead of a socket timeout: in hiredis 0.14 a read timeout
    /// poisons the context.
    func readReply(waitingUpTo milliseconds: Int32, wakingOn wake: Int32 = -1) throws(RedisError) -> RedisValue? {
        guard !isBroken else { throw .connectionLost }
        if let tls {
            let deadline = ContinuousClock.now + .milliseconds(milliseconds)
            return try overTLS { () throws(RedisError) in try nextReply(over: tls, until: deadline, wakingOn: wake) }
        }
        var reply: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(rawContext, &reply) == REDIS_OK else { throw failure() }
        if reply == nil {
            var descriptors = [
                pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, milliseconds)
            if ready == 0 || (ready < 0 && errno == EINTR) || descriptors[0].revents == 0 { return nil }
            guard ready > 0, redisBufferRead(rawContext) == REDIS_OK else { throw failure() }
            guard redisGetReplyFromReader(rawContext, &reply) == REDIS_OK else { throw failure() }
        }
        guard let reply else { return nil }
        defer { freeReplyObject(reply) }
        return try RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self))
    }
}
