import FoundationEssentials
import TextCoding

/// An `Encoder` that writes JSON as values arrive instead of building a tree first, for the
/// plain values our RPC payloads are made of: objects, arrays, strings, integers, booleans
/// and null. Strings are escaped as `JSONEncoder` escapes them.
///
/// Anything else (floating-point numbers, `Date`, `Data`, `URL`, `Decimal`, super encoders, a
/// value that encodes nothing, containers used out of order) makes it give up with
/// `CompactJSON.Unsupported`, and `JSONCoders.encode` hands the value to `JSONEncoder`.
public enum CompactJSONEncoder {
    /// `escapingSlashes: false` writes `/` as is (`JSONEncoder`'s `.withoutEscapingSlashes`).
    public static func encode<T: Encodable>(_ value: T, escapingSlashes: Bool = true) throws -> [UInt8] {
        if let writable = value as? any CompactJSONWritable {
            var json = JSONBytes(capacity: 512)
            writable.write(to: &json, escapingSlashes: escapingSlashes)
            return json.array
        }
        let writer = CompactJSONWriter(escapingSlashes: escapingSlashes)
        try writer.encodeValue(value, depth: 0, codingPath: [])
        try writer.finish()
        return writer.bytes
    }
}

/// The output and the stack of containers still open in it.
final class CompactJSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Open containers, outermost first: their identity, whether an object, and whether they
    /// hold a member yet.
    private var open: [(id: Int, isObject: Bool, isEmpty: Bool)] = []
    private var nextID = 0
    /// Values encoding themselves, one inside another, right now.
    private var nesting = 0
    /// Set by the non-throwing parts of the `Encoder` API when they meet something unsupported.
    var failed = false

    /// Whether `/` is written `\/`, as `JSONEncoder` does by default.
    let escapingSlashes: Bool

    init(escapingSlashes: Bool = true) {
        self.escapingSlashes = escapingSlashes
        self.bytes.reserveCapacity(256)
    }

    func finish() throws {
        try self.closeAbove(0)
        if self.failed { throw CompactJSON.Unsupported() }
    }

    /// Closes the containers opened after the first `depth` ones.
    private func closeAbove(_ depth: Int) throws {
        guard self.open.count >= depth else { throw CompactJSON.Unsupported() }
        while self.open.count > depth {
            self.bytes.append(self.open.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Opens a container as the value about to be written; returns its identity.
    func openContainer(isObject: Bool) -> Int {
        self.nextID += 1
        self.open.append((self.nextID, isObject, true))
        self.bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return self.nextID
    }

    /// The object still open as the value at `depth`, if there is one. While that value's
    /// `encode(to:)` runs, nothing else can have been written at its depth.
    func openObject(at depth: Int) -> Int? {
        guard self.open.count > depth, self.open[depth].isObject else { return nil }
        return self.open[depth].id
    }

    /// Opens a container as the next member of container `id` (the non-throwing nested
    /// container API: a misuse is remembered in `failed`); returns the new one's identity.
    func openNestedContainer(in id: Int, depth: Int, key: String?, isObject: Bool) -> Int {
        do {
            try self.beginMember(of: id, depth: depth, key: key)
        } catch {
            self.failed = true
        }
        return self.openContainer(isObject: isObject)
    }

    /// Prepares for the next member of container `id` at `depth` (1-based: its place on the
    /// stack): closes what its previous member left open and writes the separator and key.
    func beginMember(of id: Int, depth: Int, key: String?) throws {
        try self.closeAbove(depth)
        guard self.open.count == depth, self.open[depth - 1].id == id else { throw CompactJSON.Unsupported() }
        if self.open[depth - 1].isEmpty {
            self.open[depth - 1].isEmpty = false
        } else {
            self.bytes.append(UInt8(ascii: ","))
        }
        if let key {
            self.writeString(key)
            self.bytes.append(UInt8(ascii: ":"))
        }
    }

    /// Writes `value` at the current position; `depth` is the number of containers around it.
    /// `codingPath` is only computed for a value that encodes itself: building it for every
    /// string and number would cost an allocation each.
    func encodeValue<T: Encodable>(_ value: T, depth: Int, codingPath: @autoclosure () -> [any CodingKey]) throws {
        // A metatype comparison, then the value reinterpreted as the type it is (no dynamic cast).
        let type = T.self
        if type == String.self {
            self.writeString(unsafeBitCast(value, to: String.self))
        } else if type == Bool.self {
            self.bytes.append(contentsOf: unsafeBitCast(value, to: Bool.self) ? "true".utf8 : "false".utf8)
        } else if type == UUID.self {
            // Foundation writes `uuidString` (uppercase), which formats with `snprintf`.
            unsafeBitCast(value, to: UUID.self).appendUppercaseJSONString(to: &self.bytes)
        } else if type == [String].self {
            // Lists of item ids: written here rather than element by element through a container.
            self.bytes.append(UInt8(ascii: "["))
            for (index, text) in unsafeBitCast(value, to: [String].self).enumerated() {
                if index > 0 { self.bytes.append(UInt8(ascii: ",")) }
                self.writeString(text)
            }
            self.bytes.append(UInt8(ascii: "]"))
        } else if self.writeIfInteger(value) {
            return
        } else if type == Double.self || type == Float.self || type == Date.self || type == Data.self || type == URL.self
            || type == Decimal.self
        {
            // JSONEncoder writes these in formats of its own choosing.
            throw CompactJSON.Unsupported()
        } else {
            // A type this writer does not know that encodes itself as itself (a new standard
            // library number, say) would come back here without end: give up instead.
            self.nesting += 1
            defer { self.nesting -= 1 }
            guard self.nesting <= CompactJSON.maximumNesting else { throw CompactJSON.Unsupported() }
            let before = self.bytes.count
            try value.encode(to: CompactNodeEncoder(writer: self, depth: depth, codingPath: codingPath()))
            // A value that encoded nothing is `{}` to JSONEncoder; rare enough to leave to it.
            if self.bytes.count == before { throw CompactJSON.Unsupported() }
        }
    }

    /// Writes `value` if it is one of the standard integers (the narrower ones must be written
    /// here: their own `encode(to:)` asks the single-value container to encode them as
    /// themselves); false for any other type. The common ones are tried first.
    private func writeIfInteger<T>(_ value: T) -> Bool {
        self.write(value, ifItIs: Int.self) || self.write(value, ifItIs: Int64.self) || self.write(value, ifItIs: UInt64.self)
            || self.write(value, ifItIs: Int8.self) || self.write(value, ifItIs: Int16.self) || self.write(value, ifItIs: Int32.self)
            || self.write(value, ifItIs: UInt.self) || self.write(value, ifItIs: UInt8.self) || self.write(value, ifItIs: UInt16.self)
            || self.write(value, ifItIs: UInt32.self)
    }

    /// Inlined into `writeIfInteger` with `I` known, so that the metatypes are compared and the
    /// value reinterpreted directly: a dynamic cast (`as? I`) in a helper that was not inlined
    /// looked up generic metadata at run time for every value.
    @inline(__always)
    private func write<T, I: FixedWidthInteger>(_ value: T, ifItIs integer: I.Type) -> Bool {
        guard T.self == I.self else { return false }
        self.writeInteger(unsafeBitCast(value, to: I.self))
        return true
    }

    /// Whether the position of the next value is still empty: nothing written yet, or the
    /// last byte is the key separator, a comma or an array's opening bracket.
    var positionIsFresh: Bool {
        switch self.bytes.last {
        case nil, UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "["): return true
        default: return false
        }
    }

    func writeInteger<T: FixedWidthInteger>(_ value: T) {
        self.bytes.append(contentsOf: String(value).utf8)
    }

    func writeNull() {
        self.bytes.append(contentsOf: "null".utf8)
    }

    /// A JSON string, escaped as `JSONEncoder` does: quote, backslash, slash (unless
    /// `escapingSlashes` is off), the named control characters, and `\u00xx` for the others
    /// below 0x20.
    func writeString(_ text: String) {
        JSONString.write(text, escapingSlashes: self.escapingSlashes, to: &self.bytes)
    }
}

/// The encoder handed to one value, which sits inside `depth` open containers.
struct CompactNodeEncoder: Encoder {
    let writer: CompactJSONWriter
    let depth: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A second keyed container of the same value (a type that encodes a member's fields
        // into its own object) writes into the object the first one opened.
        let id: Int
        if let open = self.writer.openObject(at: self.depth) {
            id = open
        } else {
            if !self.writer.positionIsFresh { self.writer.failed = true }
            id = self.writer.openContainer(isObject: true)
        }
        return KeyedEncodingContainer(
            CompactKeyedEncodingContainer<Key>(writer: self.writer, id: id, depth: self.depth + 1, codingPath: self.codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if !self.writer.positionIsFresh { self.writer.failed = true }
        let id = self.writer.openContainer(isObject: false)
        return CompactUnkeyedEncodingContainer(writer: self.writer, id: id, depth: self.depth + 1, codingPath: self.codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CompactSingleValueEncodingContainer(encoder: self)
    }
}

struct CompactKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: CompactJSONWriter
    let id: Int
    let depth: Int
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        try self.writer.beginMember(of: self.id, depth: self.depth, key: key.stringValue)
        self.writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try self.writer.beginMember(of: self.id, depth: self.depth, key: key.stringValue)
        try self.writer.encodeValue(value, depth: self.depth, codingPath: self.codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let id = self.writer.openNestedContainer(in: self.id, depth: self.depth, key: key.stringValue, isObject: true)
        return KeyedEncodingContainer(
            CompactKeyedEncodingContainer<NestedKey>(writer: self.writer, id: id, depth: self.depth + 1, codingPath: self.codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let id = self.writer.openNestedContainer(in: self.id, depth: self.depth, key: key.stringValue, isObject: false)
        return CompactUnkeyedEncodingContainer(writer: self.writer, id: id, depth: self.depth + 1, codingPath: self.codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { self.unsupportedEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { self.unsupportedEncoder() }

    private func unsupportedEncoder() -> any Encoder {
        self.writer.failed = true
        return CompactNodeEncoder(writer: CompactJSONWriter(escapingSlashes: self.writer.escapingSlashes), depth: 0, codingPath: self.codingPath)
    }
}

struct CompactUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let writer: CompactJSONWriter
    let id: Int
    let depth: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(writer: CompactJSONWriter, id: Int, depth: Int, codingPath: [any CodingKey]) {
        self.writer = writer
        self.id = id
        self.depth = depth
        self.codingPath = codingPath
    }

    mutating func encodeNil() throws {
        try self.writer.beginMember(of: self.id, depth: self.depth, key: nil)
        self.writer.writeNull()
        self.count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try self.writer.beginMember(of: self.id, depth: self.depth, key: nil)
        try self.writer.encodeValue(value, depth: self.depth, codingPath: self.codingPath + [CompactIndexKey(intValue: self.count)])
        self.count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = self.codingPath + [CompactIndexKey(intValue: self.count)]
        self.count += 1
        let id = self.writer.openNestedContainer(in: self.id, depth: self.depth, key: nil, isObject: true)
        return KeyedEncodingContainer(
            CompactKeyedEncodingContainer<NestedKey>(writer: self.writer, id: id, depth: self.depth + 1, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = self.codingPath + [CompactIndexKey(intValue: self.count)]
        self.count += 1
        let id = self.writer.openNestedContainer(in: self.id, depth: self.depth, key: nil, isObject: false)
        return CompactUnkeyedEncodingContainer(writer: self.writer, id: id, depth: self.depth + 1, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        self.writer.failed = true
        return CompactNodeEncoder(writer: CompactJSONWriter(escapingSlashes: self.writer.escapingSlashes), depth: 0, codingPath: self.codingPath)
    }
}

struct CompactSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: CompactNodeEncoder
    var codingPath: [any CodingKey] { self.encoder.codingPath }
    private var written = false

    init(encoder: CompactNodeEncoder) {
        self.encoder = encoder
    }

    /// One value per container, written where the value's position is.
    private mutating func claim() throws {
        guard !self.written else { throw CompactJSON.Unsupported() }
        self.written = true
    }

    mutating func encodeNil() throws {
        try self.claim()
        self.encoder.writer.writeNull()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try self.claim()
        try self.encoder.writer.encodeValue(value, depth: self.encoder.depth, codingPath: self.encoder.codingPath)
    }
}
