import FoundationEssentials
import TextCoding

/// A `Decoder` for the plain JSON our RPC payloads are made of (objects, arrays, strings,
/// integers, booleans, null), several times cheaper per value than `JSONDecoder`, whose
/// general machinery dominated the cost of small calls.
///
/// It accepts a strict subset of what `JSONDecoder` accepts and refuses everything else
/// with `CompactJSON.Unsupported`: fractions and exponents read as integers, duplicate keys,
/// invalid UTF-8, lone surrogates, `Date` (unless `dates` says how it is written), `Data`,
/// `URL` and `Decimal` values, and every
/// malformed document. `JSONCoders.decode` then decodes the same bytes with `JSONDecoder`,
/// so a result, and every error a caller sees, is exactly `JSONDecoder`'s.
public enum CompactJSONDecoder {
    /// How a `Date` is read: by default not at all (`JSONDecoder`'s own default reads seconds
    /// since 2001); `secondsSince1970` as `JSONDecoder` with that strategy reads it, a finite
    /// number of seconds (JSON Web Tokens' times, RFC 7519 section 2).
    public enum Dates: Sendable {
        case unsupported
        case secondsSince1970
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, dates: Dates = .unsupported) throws -> T {
        if let readable = type as? any CompactJSONReadable.Type, let value = (try? Self.readWhole(readable, from: bytes)) as? T {
            return value
        }
        var parser = CompactJSONParser(bytes)
        let root = try parser.document()
        return try CompactDecoding.value(root, as: T.self, codingPath: [], dates: dates)
    }

    /// The value `type`'s own reader (`CompactJSONReadable`) reads from the whole document: it
    /// throws where the reader refuses, or where anything but whitespace follows what it read.
    public static func readWhole<T: CompactJSONReadable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        var parser = CompactJSONParser(bytes)
        let value = try T(reading: &parser)
        try parser.readEnd()
        return value
    }

    /// `data` read by this decoder, or by `reference` (which reads dates as `dates` says) when
    /// this one refuses it: the value and every error are then `reference`'s.
    public static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, dates: Dates = .unsupported, otherwise reference: JSONDecoder
    ) throws -> T {
        if let value = data.withUnsafeBytes({ try? self.decode(T.self, from: $0, dates: dates) }) { return value }
        return try reference.decode(T.self, from: data)
    }
}

/// Conversions from nodes to the values `Decodable` types ask for.
enum CompactDecoding {
    /// `codingPath` is only computed for a value that decodes itself: building it for every
    /// string and number would cost an allocation each.
    static func value<T: Decodable>(
        _ node: CompactJSONNode, as type: T.Type, codingPath: @autoclosure () -> [any CodingKey], dates: CompactJSONDecoder.Dates
    ) throws -> T {
        // A metatype comparison, then the value reinterpreted as the type it is (a dynamic cast
        // cost more than reading the value).
        if type == String.self { return unsafeBitCast(try self.string(node), to: T.self) }
        if type == Bool.self { return unsafeBitCast(try self.bool(node), to: T.self) }
        if type == Int.self { return unsafeBitCast(try self.integer(node, as: Int.self), to: T.self) }
        if type == Int64.self { return unsafeBitCast(try self.integer(node, as: Int64.self), to: T.self) }
        if type == UInt64.self { return unsafeBitCast(try self.integer(node, as: UInt64.self), to: T.self) }
        // Ids: Foundation's own reading of a UUID's string calls `sscanf`.
        if type == UUID.self {
            guard let value = UUID(text: try self.string(node)) else { throw CompactJSON.Unsupported() }
            return unsafeBitCast(value, to: T.self)
        }
        // Lists of ids (a state query's 50 item ids): element by element through `Decodable`,
        // each string cost a container and a generic metadata lookup.
        if type == [String].self {
            guard case .array(let nodes) = node else { throw CompactJSON.Unsupported() }
            return unsafeBitCast(try nodes.map(self.string), to: T.self)
        }
        if type == Date.self, dates == .secondsSince1970 {
            return unsafeBitCast(Date(timeIntervalSince1970: try self.floatingPoint(node, as: Double.self)), to: T.self)
        }
        // JSONDecoder reads these from strings, base64 or numbers of its own choosing.
        if type == Date.self || type == Data.self || type == URL.self || type == Decimal.self { throw CompactJSON.Unsupported() }
        return try T(from: CompactNodeDecoder(node: node, codingPath: codingPath(), dates: dates, decoding: T.self))
    }

    static func string(_ node: CompactJSONNode) throws -> String {
        guard case .string(let text) = node else { throw CompactJSON.Unsupported() }
        return text
    }

    static func bool(_ node: CompactJSONNode) throws -> Bool {
        guard case .bool(let value) = node else { throw CompactJSON.Unsupported() }
        return value
    }

    /// Integers written as integers only: `1.0` and `1e2` are left to `JSONDecoder`.
    static func integer<T: FixedWidthInteger>(_ node: CompactJSONNode, as type: T.Type) throws -> T {
        guard case .number(let text) = node, let value = T(text, radix: 10) else { throw CompactJSON.Unsupported() }
        return value
    }

    /// Finite values only: JSONDecoder refuses a number too large for the type. A number that
    /// reads as zero with an exponent or nonzero digits (too small for the type, or `-0.0e11`)
    /// is left to JSONDecoder too, which refuses some of them: the fast path never accepts a
    /// document the reference decoder refuses (found by `scripts/fuzz json-decoder`).
    static func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ node: CompactJSONNode, as type: T.Type) throws -> T {
        guard case .number(let text) = node, let value = T(text), value.isFinite else { throw CompactJSON.Unsupported() }
        if value == 0, text.utf8.contains(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") || (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) {
            throw CompactJSON.Unsupported()
        }
        return value
    }
}

struct CompactNodeDecoder: Decoder {
    let node: CompactJSONNode
    let codingPath: [any CodingKey]
    let dates: CompactJSONDecoder.Dates
    /// The type this decoder was made for, when a value decodes itself.
    var decoding: Any.Type? = nil
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let keys, let values) = self.node else { throw CompactJSON.Unsupported() }
        return KeyedDecodingContainer(CompactKeyedContainer<Key>(keys: keys, values: values, codingPath: self.codingPath, dates: self.dates))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = self.node else { throw CompactJSON.Unsupported() }
        return CompactUnkeyedContainer(elements: elements, codingPath: self.codingPath, dates: self.dates)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CompactSingleValueContainer(node: self.node, codingPath: self.codingPath, dates: self.dates, owner: self.decoding)
    }
}

struct CompactKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let keys: [String]
    let values: [CompactJSONNode]
    let codingPath: [any CodingKey]
    let dates: CompactJSONDecoder.Dates
    /// Positions by key, for an object with many members (a dictionary): a linear search per
    /// member would make reading it quadratic. A struct's few keys are searched in order.
    private let positions: [String: Int]?

    init(keys: [String], values: [CompactJSONNode], codingPath: [any CodingKey], dates: CompactJSONDecoder.Dates) {
        self.keys = keys
        self.values = values
        self.codingPath = codingPath
        self.dates = dates
        self.positions = keys.count < 16 ? nil : Dictionary(uniqueKeysWithValues: zip(keys, keys.indices))
    }

    var allKeys: [Key] { self.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { self.position(of: key.stringValue) != nil }

    private func position(of name: String) -> Int? {
        if let positions = self.positions { return positions[name] }
        return self.keys.firstIndex(of: name)
    }

    private func node(_ key: Key) throws -> CompactJSONNode {
        guard let index = self.position(of: key.stringValue) else { throw CompactJSON.Unsupported() }
        return self.values[index]
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try self.node(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try CompactDecoding.bool(try self.node(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try CompactDecoding.string(try self.node(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try CompactDecoding.floatingPoint(try self.node(key), as: type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try CompactDecoding.floatingPoint(try self.node(key), as: type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try CompactDecoding.integer(try self.node(key), as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try CompactDecoding.integer(try self.node(key), as: type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try CompactDecoding.value(try self.node(key), as: type, codingPath: self.codingPath + [key], dates: self.dates)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try CompactNodeDecoder(node: try self.node(key), codingPath: self.codingPath + [key], dates: self.dates).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CompactNodeDecoder(node: try self.node(key), codingPath: self.codingPath + [key], dates: self.dates).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw CompactJSON.Unsupported() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw CompactJSON.Unsupported() }
}

struct CompactUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [CompactJSONNode]
    let codingPath: [any CodingKey]
    let dates: CompactJSONDecoder.Dates
    private(set) var currentIndex = 0

    init(elements: [CompactJSONNode], codingPath: [any CodingKey], dates: CompactJSONDecoder.Dates) {
        self.elements = elements
        self.codingPath = codingPath
        self.dates = dates
    }

    var count: Int? { self.elements.count }
    var isAtEnd: Bool { self.currentIndex >= self.elements.count }

    private mutating func next() throws -> CompactJSONNode {
        guard !self.isAtEnd else { throw CompactJSON.Unsupported() }
        defer { self.currentIndex += 1 }
        return self.elements[self.currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !self.isAtEnd else { throw CompactJSON.Unsupported() }
        if case .null = self.elements[self.currentIndex] {
            self.currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try CompactDecoding.bool(try self.next()) }
    mutating func decode(_ type: String.Type) throws -> String { try CompactDecoding.string(try self.next()) }
    mutating func decode(_ type: Double.Type) throws -> Double { try CompactDecoding.floatingPoint(try self.next(), as: type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try CompactDecoding.floatingPoint(try self.next(), as: type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try CompactDecoding.integer(try self.next(), as: type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try CompactDecoding.integer(try self.next(), as: type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let index = self.currentIndex
        return try CompactDecoding.value(
            try self.next(), as: type, codingPath: self.codingPath + [CompactIndexKey(intValue: index)], dates: self.dates)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = self.codingPath + [CompactIndexKey(intValue: self.currentIndex)]
        return try CompactNodeDecoder(node: try self.next(), codingPath: path, dates: self.dates).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = self.codingPath + [CompactIndexKey(intValue: self.currentIndex)]
        return try CompactNodeDecoder(node: try self.next(), codingPath: path, dates: self.dates).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw CompactJSON.Unsupported() }
}

struct CompactSingleValueContainer: SingleValueDecodingContainer {
    let node: CompactJSONNode
    let codingPath: [any CodingKey]
    let dates: CompactJSONDecoder.Dates
    /// The type whose `init(from:)` asked for this container. A type this decoder does not know
    /// that decodes itself as itself (a new standard library number, say) would come back to
    /// its own `init(from:)` without end: `decode` gives up instead.
    let owner: Any.Type?

    func decodeNil() -> Bool {
        if case .null = self.node { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try CompactDecoding.bool(self.node) }
    func decode(_ type: String.Type) throws -> String { try CompactDecoding.string(self.node) }
    func decode(_ type: Double.Type) throws -> Double { try CompactDecoding.floatingPoint(self.node, as: type) }
    func decode(_ type: Float.Type) throws -> Float { try CompactDecoding.floatingPoint(self.node, as: type) }
    func decode(_ type: Int.Type) throws -> Int { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try CompactDecoding.integer(self.node, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try CompactDecoding.integer(self.node, as: type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let owner = self.owner, owner == T.self { throw CompactJSON.Unsupported() }
        return try CompactDecoding.value(self.node, as: type, codingPath: self.codingPath, dates: self.dates)
    }
}

/// The coding key of an array element.
struct CompactIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(self.intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
