import Foundation
import NIOCore
import NIOFoundationCompat

/// The top-level members of a request or response frame, found by `JSONObjectScanner`:
/// scalar members are read directly, `params` / `result` stay bytes for the one decoder
/// that knows their type.
struct FrameEnvelope {
    /// Why a frame is not a usable envelope, as the `bad_request` message says it.
    struct Invalid: Error {
        var message: String
    }

    let frame: ByteBuffer
    private var members: [String: Range<Int>] = [:]

    init(_ frame: ByteBuffer) throws {
        self.frame = frame
        let found = try? frame.withUnsafeReadableBytes { try JSONObjectScanner.members(of: $0) }
        guard let found else { throw Invalid(message: "Malformed JSON") }
        for member in found {
            // A key written with escapes could spell a known key that this reader would not
            // see and a full JSON parser would; a known key given twice could be read either
            // way. An envelope needs neither, so both are refused.
            if member.key.utf8.contains(UInt8(ascii: "\\")) { throw Invalid(message: "Escaped member name") }
            guard Self.knownKeys.contains(member.key) else { continue }
            guard self.members.updateValue(member.value, forKey: member.key) == nil else {
                throw Invalid(message: "Duplicate member \(member.key)")
            }
        }
    }

    private static let knownKeys: Set<String> = ["v", "id", "method", "params", "result", "error", "deadline_ms", "request_id"]

    func contains(_ key: String) -> Bool {
        guard let range = self.members[key] else { return false }
        return !self.isNull(range)
    }

    /// The raw bytes of a member's value; nil when absent or `null`.
    func slice(_ key: String) -> ByteBuffer? {
        guard let range = self.members[key], !self.isNull(range) else { return nil }
        return self.frame.getSlice(at: self.frame.readerIndex + range.lowerBound, length: range.count)
    }

    /// An unsigned integer member; nil when absent or `null`.
    func unsigned(_ key: String) throws -> UInt64? {
        guard let range = self.members[key], !self.isNull(range) else { return nil }
        let value: UInt64? = self.frame.withUnsafeReadableBytes { bytes in
            var result: UInt64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                let (multiplied, overflow1) = result.multipliedReportingOverflow(by: 10)
                let (added, overflow2) = multiplied.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { return nil }
                result = added
            }
            return range.isEmpty ? nil : result
        }
        guard let value else { throw Invalid(message: "Invalid type for \(key)") }
        return value
    }

    /// A string member; nil when absent or `null`.
    func string(_ key: String) throws -> String? {
        guard let range = self.members[key], !self.isNull(range) else { return nil }
        let direct: String?? = self.frame.withUnsafeReadableBytes { bytes in
            let value = bytes[range]
            guard value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") else { return .some(nil) }
            let inner = value.dropFirst().dropLast()
            if inner.contains(UInt8(ascii: "\\")) { return nil }  // has escapes: let JSONDecoder read it
            return .some(String(decoding: inner, as: UTF8.self))
        }
        switch direct {
        case .some(.some(let string)): return string
        case .some(.none): throw Invalid(message: "Invalid type for \(key)")
        case .none:
            guard let slice = self.slice(key), let string = try? JSONCoders.decode(String.self, from: slice) else {
                throw Invalid(message: "Invalid value for \(key)")
            }
            return string
        }
    }

    private func isNull(_ range: Range<Int>) -> Bool {
        range.count == 4 && self.frame.getString(at: self.frame.readerIndex + range.lowerBound, length: 4) == "null"
    }
}

/// Writes envelopes around JSON that `JSONEncoder` produced for the params or result alone.
enum EnvelopeWriter {
    static let allocator = ByteBufferAllocator()

    static func request(id: UInt64, method: String, params: Data, deadlineMs: UInt64?, requestID: String?) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: params.count + method.utf8.count + 96)
        buffer.writeStaticString(#"{"v":1,"id":"#)
        buffer.writeString(String(id))
        buffer.writeStaticString(#","method":"#)
        writeQuoted(method, to: &buffer)
        if let deadlineMs {
            buffer.writeStaticString(#","deadline_ms":"#)
            buffer.writeString(String(deadlineMs))
        }
        if let requestID {
            buffer.writeStaticString(#","request_id":"#)
            writeQuoted(requestID, to: &buffer)
        }
        buffer.writeStaticString(#","params":"#)
        buffer.writeBytes(params)
        buffer.writeStaticString("}")
        return buffer
    }

    static func result(id: UInt64, result: Data) -> ByteBuffer {
        self.result(id: id, size: result.count) { $0.writeBytes(result) }
    }

    static func result(id: UInt64, result: ByteBuffer) -> ByteBuffer {
        self.result(id: id, size: result.readableBytes) { $0.writeImmutableBuffer(result) }
    }

    /// A result envelope around the `size` bytes that `writeResult` writes.
    private static func result(id: UInt64, size: Int, _ writeResult: (inout ByteBuffer) -> Void) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: size + 40)
        buffer.writeStaticString(#"{"v":1,"id":"#)
        buffer.writeString(String(id))
        buffer.writeStaticString(#","result":"#)
        writeResult(&buffer)
        buffer.writeStaticString("}")
        return buffer
    }

    /// Writes `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func writeQuoted(_ text: String, to buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        // A native string's bytes are checked and copied in place: most are plain.
        let plain = text.utf8.withContiguousStorageIfAvailable { storage -> Bool in
            for byte in storage where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            buffer.writeBytes(storage)
            return true
        }
        if plain == true {
            buffer.writeStaticString("\"")
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.writeStaticString(#"\""#)
            case UInt8(ascii: "\\"): buffer.writeStaticString(#"\\"#)
            case 0..<0x20:
                buffer.writeStaticString(#"\u00"#)
                let hex = Array("0123456789abcdef".utf8)
                buffer.writeBytes([hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: buffer.writeInteger(byte)
            }
        }
        buffer.writeStaticString("\"")
    }
}
