import Foundation
import Redis

/// Bytes a Redis server sends, read as every connection reads them (hiredis's reader, then
/// `RedisValue`). Properties: nothing traps; the replies and the error do not depend on how
/// the bytes arrive (whole, or a byte at a time); a reply holds text only when it is UTF-8
/// (`.bytes` otherwise); every reply written out as RESP again reads back as itself, alone.
/// An input that declares an array of 100,000 elements or more is skipped: hiredis allocates the
/// element table before any element arrives (8 bytes each), which the fuzzer's memory limit
/// reports as a crash.
enum RESPFuzzing {
    static let largestArray = 100_000

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard !Self.declaresLargeArray(bytes) else { return }
        let whole = RedisFuzzing.replies([bytes])
        let split = RedisFuzzing.replies((0..<bytes.count).map { UnsafeRawBufferPointer(rebasing: bytes[$0..<($0 + 1)]) })
        FuzzCheck.require(whole.replies == split.replies, "read whole: \(whole.replies), a byte at a time: \(split.replies)")
        FuzzCheck.require((whole.error == nil) == (split.error == nil), "read whole: \(String(describing: whole.error)), a byte at a time: \(String(describing: split.error))")
        for reply in whole.replies {
            Self.checkText(reply)
            let written = Self.write(reply)
            let again = written.withUnsafeBytes { RedisFuzzing.replies([$0]) }
            FuzzCheck.require(again.replies == [reply] && again.error == nil, "\(reply) written out reads as \(again)")
        }
    }

    static func checkText(_ value: RedisValue) {
        switch value {
        case .bytes(let bytes): FuzzCheck.require(String(validating: bytes, as: UTF8.self) == nil, "UTF-8 read as bytes: \(bytes)")
        case .array(let elements): elements.forEach(Self.checkText)
        default: break
        }
    }

    /// A reply as a server writes it (RESP2); text as a bulk string.
    static func write(_ value: RedisValue) -> [UInt8] {
        let end: [UInt8] = [13, 10]
        switch value {
        case .null: return Array("$-1\r\n".utf8)
        case .string(let text): return Array("$\(text.utf8.count)\r\n".utf8) + Array(text.utf8) + end
        case .bytes(let bytes): return Array("$\(bytes.count)\r\n".utf8) + bytes + end
        case .integer(let number): return Array(":\(number)\r\n".utf8)
        case .error(let message): return Array("-".utf8) + Array(message.utf8) + end
        case .array(let elements): return Array("*\(elements.count)\r\n".utf8) + elements.flatMap(Self.write)
        }
    }

    /// Whether a `*` followed by digits anywhere says `largestArray` or more.
    static func declaresLargeArray(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while let star = bytes[index...].firstIndex(of: UInt8(ascii: "*")) {
            var cursor = star + 1
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: "+") || bytes[cursor] == UInt8(ascii: "-") { cursor += 1 }
            var count = 0
            while cursor < bytes.count, (48...57).contains(bytes[cursor]) {
                count = min(count * 10 + Int(bytes[cursor] - 48), Self.largestArray)
                cursor += 1
            }
            if count >= Self.largestArray { return true }
            index = star + 1
        }
        return false
    }
}
