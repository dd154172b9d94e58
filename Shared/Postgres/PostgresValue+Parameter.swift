import CLibPQ
import TextCoding

/// The bind parameters of one statement laid out the way `PQexecParams` wants them:
/// text values NUL-terminated, bytea sent in binary format, everything in one buffer.
struct EncodedParameters {
    var buffer: [UInt8] = []
    var offsets: [Int?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []
    var types: [Oid] = []

    init(_ values: [PostgresValue]) throws(PostgresError) {
        for (index, value) in values.enumerated() {
            try append(value, number: index + 1)
        }
    }

    var count: Int { offsets.count }

    private mutating func append(_ value: PostgresValue, number: Int) throws(PostgresError) {
        switch value {
        case .null:
            offsets.append(nil)
            lengths.append(0)
            formats.append(0)
            types.append(0)
            return
        case .bytea(let bytes):
            offsets.append(buffer.count)
            buffer.append(contentsOf: bytes)
            lengths.append(Int32(bytes.count))
            formats.append(1)
            types.append(PostgresDataType.bytea.oid)
            return
        case .text(let string):
            guard !string.utf8.contains(0) else {
                throw .invalidParameter(index: number, message: "text contains a NUL byte")
            }
            appendText(string)
        case .int(let int): appendText(String(int))
        case .bool(let bool): appendText(bool ? "t" : "f")
        case .uuid(let uuid): appendText(uuid.lowercasedText)
        case .timestamp(let date): appendText(TimestampText.format(date))
        case .double(let double): appendText(Self.text(for: double))
        }
    }

    /// Text-format values go untyped (OID 0) so the server infers the type from the SQL,
    /// exactly as for a quoted literal.
    private mutating func appendText(_ string: String) {
        offsets.append(buffer.count)
        buffer.append(contentsOf: string.utf8)
        buffer.append(0)
        lengths.append(0)
        formats.append(0)
        types.append(0)
    }

    private static func text(for double: Double) -> String {
        if double.isNaN { return "NaN" }
        if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
        return String(double)
    }

    /// Calls `body` with the C arrays; the pointers are valid only inside it.
    func withUnsafeArrays<R>(
        _ body: (
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?,
            UnsafePointer<Oid>?
        ) -> R
    ) -> R {
        if offsets.isEmpty { return body(nil, nil, nil, nil) }
        return buffer.withUnsafeBytes { raw in
            let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
            let emptyText: StaticString = ""
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard let offset else { return nil }
                // A zero-length bytea still needs a non-NULL pointer (NULL means SQL NULL).
                guard let base else {
                    return UnsafeRawPointer(emptyText.utf8Start).assumingMemoryBound(to: CChar.self)
                }
                return base + offset
            }
            return body(values, lengths, formats, types)
        }
    }
}
