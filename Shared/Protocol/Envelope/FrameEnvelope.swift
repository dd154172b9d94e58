import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOFoundationEssentialsCompat
import TextCoding

/// The top-level members of a request or response frame, found by `JSONObjectScanner`:
/// scalar members are read directly, `params` / `result` stay bytes for the one decoder
/// that knows their type.
struct FrameEnvelope {
    /// Why a frame is not a usable envelope, as the `bad_request` message says it.
    struct Invalid: Error {
        var message: String
    }

    /// The members an envelope of the protocol has (docs/protocol.md); others are skipped.
    enum Member: Int, CaseIterable {
        case v, id, method, params, result, error, deadlineMs, requestID, clientIP, userAgent

        var name: StaticString {
            switch self {
            case .v: "v"
            case .id: "id"
            case .method: "method"
            case .params: "params"
            case .result: "result"
            case .error: "error"
            case .deadlineMs: "deadline_ms"
            case .requestID: "request_id"
            case .clientIP: "client_ip"
            case .userAgent: "user_agent"
            }
        }

        /// The member whose name `key` spells byte for byte, if any.
        static func named(_ key: Slice<UnsafeRawBufferPointer>) -> Member? {
            for member in Self.allCases {
                let name = member.name
                guard name.utf8CodeUnitCount == key.count else { continue }
                if memcmp(name.utf8Start, key.base.baseAddress! + key.startIndex, key.count) == 0 { return member }
            }
            return nil
        }
    }

    let frame: ByteBuffer
    /// The value's byte range of each member present, by `Member.rawValue`.
    private var ranges = InlineArray<10, Range<Int>?>(repeating: nil)

    init(_ frame: ByteBuffer) throws {
        self.frame = frame
        // The first ambiguous member, reported only if the whole frame is well-formed JSON.
        var fault: Invalid?
        do {
            try frame.withUnsafeReadableBytes { bytes in
                try JSONObjectScanner.forEachMember(of: bytes) { keyRange, value in
                    guard fault == nil else { return }
                    let key = bytes[keyRange]
                    // A key written with escapes could spell a known key that this reader would
                    // not see and a full JSON parser would; a known key given twice could be read
                    // either way. An envelope needs neither, so both are refused.
                    if key.contains(UInt8(ascii: "\\")) {
                        fault = Invalid(message: "Escaped member name")
                    } else if let member = Member.named(key) {
                        if self.ranges[member.rawValue] == nil {
                            self.ranges[member.rawValue] = value
                        } else {
                            fault = Invalid(message: "Duplicate member \(member.name)")
                        }
                    }
                }
            }
        } catch {
            throw Invalid(message: "Malformed JSON")
        }
        if let fault { throw fault }
    }

    /// The range of `member`'s value; nil when absent or `null`.
    private func range(_ member: Member) -> Range<Int>? {
        guard let range = self.ranges[member.rawValue], !self.isNull(range) else { return nil }
        return range
    }

    /// The raw bytes of a member's value; nil when absent or `null`.
    func slice(_ member: Member) -> ByteBuffer? {
        guard let range = self.range(member) else { return nil }
        return self.frame.getSlice(at: self.frame.readerIndex + range.lowerBound, length: range.count)
    }

    /// An unsigned integer member; nil when absent or `null`.
    func unsigned(_ member: Member) throws -> UInt64? {
        guard let range = self.range(member) else { return nil }
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
        guard let value else { throw Invalid(message: "Invalid type for \(member.name)") }
        return value
    }

    /// A string member; nil when absent or `null`.
    func string(_ member: Member) throws -> String? {
        guard let range = self.range(member) else { return nil }
        let direct: String?? = self.frame.withUnsafeReadableBytes { bytes in
            let value = bytes[range]
            guard value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") else { return .some(nil) }
            let inner = value.dropFirst().dropLast()
            if inner.contains(UInt8(ascii: "\\")) { return nil }  // has escapes: let JSONDecoder read it
            return .some(String(decoding: inner, as: UTF8.self))
        }
        switch direct {
        case .some(.some(let string)): return string
        case .some(.none): throw Invalid(message: "Invalid type for \(member.name)")
        case .none:
            guard let slice = self.slice(member), let string = try? JSONCoders.decode(String.self, from: slice) else {
                throw Invalid(message: "Invalid value for \(member.name)")
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

    static func request(
        id: UInt64, method: String, params: Data, deadlineMs: UInt64?, requestID: String?, origin: RPCCallOrigin? = nil
    ) -> ByteBuffer {
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
        if let clientIP = origin?.clientIP {
            buffer.writeStaticString(#","client_ip":"#)
            writeQuoted(clientIP, to: &buffer)
        }
        if let userAgent = origin?.userAgent {
            buffer.writeStaticString(#","user_agent":"#)
            writeQuoted(userAgent, to: &buffer)
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

    static func result(id: UInt64, result: RawJSON) -> ByteBuffer {
        self.result(id: id, size: result.count) { result.write(to: &$0) }
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

    /// Writes `text` as a JSON string (`JSONString`, the escaper every hand-written JSON uses).
    static func writeQuoted<Sink: JSONByteSink>(_ text: String, to sink: inout Sink) {
        JSONString.write(text, to: &sink)
    }
}
