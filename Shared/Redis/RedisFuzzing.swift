import CHiredis

/// The RESP reader behind every connection (hiredis's, then `RedisValue(reply:)`), for the
/// fuzz targets (`Tools/fuzz`, `scripts/fuzz`). Package-only.
package enum RedisFuzzing {
    /// What a connection reads from `chunks`, fed one after another: every complete reply, and
    /// the error that ended the reading (hiredis's protocol error, or a reply no `RedisValue`
    /// holds), if one did.
    package static func replies(_ chunks: [UnsafeRawBufferPointer]) -> (replies: [RedisValue], error: RedisError?) {
        guard let reader = redisReaderCreate() else { preconditionFailure("cannot allocate a hiredis reader") }
        defer { redisReaderFree(reader) }
        var replies: [RedisValue] = []
        for chunk in chunks {
            if chunk.count > 0, redisReaderFeed(reader, chunk.baseAddress!.assumingMemoryBound(to: CChar.self), chunk.count) != REDIS_OK {
                return (replies, .protocolError(Self.errorText(reader)))
            }
            while true {
                var reply: UnsafeMutableRawPointer?
                guard redisReaderGetReply(reader, &reply) == REDIS_OK else { return (replies, .protocolError(Self.errorText(reader))) }
                guard let reply else { break }
                defer { freeReplyObject(reply) }
                do {
                    replies.append(try RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self)))
                } catch {
                    return (replies, error)
                }
            }
        }
        return (replies, nil)
    }

    private static func errorText(_ reader: UnsafeMutablePointer<redisReader>) -> String {
        withUnsafeBytes(of: reader.pointee.errstr) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
