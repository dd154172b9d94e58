/// Which `Content-Type` a request body must declare: `application/json` or any `…+json` type
/// (parameters such as `charset` ignored). A body in another type is 415, so that a form or
/// text body is never read as JSON by accident.
///
/// Read over the header's bytes (every request with a body asks): the type ends at the first
/// `;`, spaces and tabs around it are dropped (HTTP's optional whitespace), and letters compare
/// without regard to ASCII case.
enum JSONMediaType {
    static func matches(_ contentType: String?) -> Bool {
        guard var contentType else { return false }
        return contentType.withUTF8 { Self.matches(bytes: $0) }
    }

    private static func matches(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        var start = 0
        while start < end, Self.isSpace(bytes[start]) { start += 1 }
        while end > start, Self.isSpace(bytes[end - 1]) { end -= 1 }
        let type = bytes[start..<end]
        guard let slash = type.firstIndex(of: UInt8(ascii: "/")), slash != start else { return false }
        if Self.equalsIgnoringASCIICase(type, "application/json") { return true }
        let subtype = type[(slash + 1)...]
        return subtype.count > 5 && Self.equalsIgnoringASCIICase(subtype.suffix(5), "+json")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// `bytes` spell `lowercase` (which holds no capitals) in any ASCII case.
    private static func equalsIgnoringASCIICase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var expected = lowercase.utf8Start
        for byte in bytes {
            let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            guard folded == expected.pointee else { return false }
            expected += 1
        }
        return true
    }
}
