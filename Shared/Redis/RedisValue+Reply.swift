import CHiredis

extension RedisValue {
    /// Copies a hiredis reply tree into a `RedisValue`; the caller still frees `reply`.
    init(reply: UnsafeMutablePointer<redisReply>) throws(RedisError) {
        let reply = reply.pointee
        switch reply.type {
        case REDIS_REPLY_STRING, REDIS_REPLY_STATUS:
            let bytes = UnsafeRawBufferPointer(start: reply.str, count: reply.len)
            if let text = String(validating: bytes, as: UTF8.self) {
                self = .string(text)
            } else {
                self = .bytes(Array(bytes))
            }
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(reply.integer))
        case REDIS_REPLY_NIL:
            self = .null
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: UnsafeRawBufferPointer(start: reply.str, count: reply.len), as: UTF8.self))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisValue] = []
            elements.reserveCapacity(reply.elements)
            for index in 0..<reply.elements {
                guard let element = reply.element[index] else { throw .protocolError("array reply with a missing element") }
                elements.append(try RedisValue(reply: element))
            }
            self = .array(elements)
        default:
            throw .protocolError("unknown reply type \(reply.type)")
        }
    }
}
