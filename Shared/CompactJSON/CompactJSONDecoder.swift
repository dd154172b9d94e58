import Foundation

/// A `Decoder` for the plain JSON our RPC payloads are made of (objects, arrays, strings,
/// integers, booleans, null), several times cheaper per value than `JSONDecoder`, whose
/// general machinery dominated the cost of small calls.
///
/// It accepts a strict subset of what `JSONDecoder` accepts and refuses everything else
/// with `CompactJSON.Unsupported`: fractions and exponents read as integers, duplicate keys,
/// invalid UTF-8, lone surrogates, `Date`, `Data`, `URL` and `Decimal` values, and every
/// malformed document. `JSONCoders.decode` then decodes the same bytes with `JSONDecoder`,
/// so a result, and every error a caller sees, is exactly `JSONDecoder`'s.
enum CompactJSONDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        var parser = CompactJSONParser(bytes)
        let root = try parser.document()
        return try CompactDecoding.value(root, as: T.self, codingPath: [])
    }
}

/// Why the compact coders handed a value to Foundation's.
enum CompactJSON {
    struct Unsupported: Error {}

    /// How many values may encode themselves one inside another. Deeper is a type that
    /// encodes itself as itself, or a value deeper than any document the decoder reads (512).
    static let maximumNesting = 600

    /// `value` as `U`, which the caller checked is its type (`T.self == U.self`): a copy
    /// without the dynamic cast `as!` would make.
    @inline(__always)
    static func reinterpret<T, U>(_ value: T, as type: U.Type) -> U {
        withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: U.self) }
    }
}

/// A parsed JSON value. Numbers keep their text, so each is converted once, to the type asked.
public enum CompactJSONNode: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([CompactJSONNode])
    case object(keys: [String], values: [CompactJSONNode])
}

struct CompactJSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private static let maximumDepth = 512

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// One value with nothing but whitespace around it.
    mutating func document() throws -> CompactJSONNode {
        let value = try self.value(depth: 0)
        self.skipWhitespace()
        guard self.index == self.bytes.count else { throw CompactJSON.Unsupported() }
        return value
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): self.index += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws -> CompactJSONNode {
        self.skipWhitespace()
        guard self.index < self.bytes.count, depth < Self.maximumDepth else { throw CompactJSON.Unsupported() }
        switch self.bytes[self.index] {
        case UInt8(ascii: "{"): return try self.object(depth: depth)
        case UInt8(ascii: "["): return try self.array(depth: depth)
        case UInt8(ascii: "\""): return .string(try self.string())
        case UInt8(ascii: "t"): try self.literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try self.literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try self.literal("null"); return .null
        default: return .number(try self.number())
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard self.bytes.count - self.index >= count else { throw CompactJSON.Unsupported() }
        for offset in 0..<count where self.bytes[self.index + offset] != word.utf8Start[offset] {
            throw CompactJSON.Unsupported()
        }
        self.index += count
    }

    private mutating func object(depth: Int) throws -> CompactJSONNode {
        var keys: [String] = []
        var values: [CompactJSONNode] = []
        var seen: Set<String> = []
        if self.open(closedBy: UInt8(ascii: "}")) { return .object(keys: keys, values: values) }
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else { throw CompactJSON.Unsupported() }
            let key = try self.string()
            // JSONDecoder keeps the first of duplicate keys; leave such documents to it. A
            // linear search is cheapest for the few keys of a struct; a set for a dictionary's.
            if keys.count < 16 {
                if keys.contains(key) { throw CompactJSON.Unsupported() }
            } else {
                if seen.isEmpty { seen = Set(keys) }
                if !seen.insert(key).inserted { throw CompactJSON.Unsupported() }
            }
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else { throw CompactJSON.Unsupported() }
            self.index += 1
            keys.append(key)
            values.append(try self.value(depth: depth + 1))
            if try self.next(closedBy: UInt8(ascii: "}")) { return .object(keys: keys, values: values) }
        }
    }

    private mutating func array(depth: Int) throws -> CompactJSONNode {
        var elements: [CompactJSONNode] = []
        if self.open(closedBy: UInt8(ascii: "]")) { return .array(elements) }
        while true {
            elements.append(try self.value(depth: depth + 1))
            if try self.next(closedBy: UInt8(ascii: "]")) { return .array(elements) }
        }
    }

    /// Steps over an opening bracket; true if `closing` follows at once (an empty container).
    private mutating func open(closedBy closing: UInt8) -> Bool {
        self.index += 1
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == closing else { return false }
        self.index += 1
        return true
    }

    /// After a member: a comma (false: another follows) or `closing` (true: the container ends).
    private mutating func next(closedBy closing: UInt8) throws -> Bool {
        self.skipWhitespace()
        guard self.index < self.bytes.count else { throw CompactJSON.Unsupported() }
        let byte = self.bytes[self.index]
        self.index += 1
        if byte == UInt8(ascii: ",") { return false }
        if byte == closing { return true }
        throw CompactJSON.Unsupported()
    }

    /// A string from its opening quote; escapes decoded, UTF-8 validated.
    private mutating func string() throws -> String {
        self.index += 1  // "
        let start = self.index
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
                self.index += 1
                guard let text else { throw CompactJSON.Unsupported() }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try self.escapedString(from: start) }
            if byte < 0x20 { throw CompactJSON.Unsupported() }
            self.index += 1
        }
        throw CompactJSON.Unsupported()
    }

    /// The rest of a string that holds escapes, from its first character at `start`.
    private mutating func escapedString(from start: Int) throws -> String {
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index]))
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw CompactJSON.Unsupported() }
                return text
            case UInt8(ascii: "\\"):
                guard self.index < self.bytes.count else { throw CompactJSON.Unsupported() }
                let escape = self.bytes[self.index]
                self.index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try self.hexQuad()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard self.bytes.count - self.index >= 6, self.bytes[self.index] == UInt8(ascii: "\\"),
                            self.bytes[self.index + 1] == UInt8(ascii: "u")
                        else { throw CompactJSON.Unsupported() }
                        self.index += 2
                        let low = try self.hexQuad()
                        guard (0xDC00..<0xE000).contains(low) else { throw CompactJSON.Unsupported() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw CompactJSON.Unsupported() }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default: throw CompactJSON.Unsupported()
                }
            default:
                if byte < 0x20 { throw CompactJSON.Unsupported() }
                utf8.append(byte)
            }
        }
        throw CompactJSON.Unsupported()
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard self.bytes.count - self.index >= 4 else { throw CompactJSON.Unsupported() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            self.index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw CompactJSON.Unsupported()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// A number as RFC 8259 writes it: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func number() throws -> String {
        let start = self.index
        func digits(_ parser: inout CompactJSONParser) -> Int {
            let first = parser.index
            while parser.index < parser.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                parser.index += 1
            }
            return parser.index - first
        }
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
        let integerStart = self.index
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || self.bytes[integerStart] != UInt8(ascii: "0") else {
            throw CompactJSON.Unsupported()
        }
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
            self.index += 1
            guard digits(&self) > 0 else { throw CompactJSON.Unsupported() }
        }
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "e") || self.bytes[self.index] == UInt8(ascii: "E") {
            self.index += 1
            if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-") {
                self.index += 1
            }
            guard digits(&self) > 0 else { throw CompactJSON.Unsupported() }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
    }
}

/// Conversions from nodes to the values `Decodable` types ask for.
enum CompactDecoding {
    /// `codingPath` is only computed for a value that decodes itself: building it for every
    /// string and number would cost an allocation each.
    static func value<T: Decodable>(_ node: CompactJSONNode, as type: T.Type, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        // Metatype comparisons: a dynamic cast per case would cost more than the conversion.
        if type == String.self { return CompactJSON.reinterpret(try self.string(node), as: T.self) }
        if type == Bool.self { return CompactJSON.reinterpret(try self.bool(node), as: T.self) }
        if type == Int.self { return CompactJSON.reinterpret(try self.integer(node, as: Int.self), as: T.self) }
        if type == Int64.self { return CompactJSON.reinterpret(try self.integer(node, as: Int64.self), as: T.self) }
        if type == UInt64.self { return CompactJSON.reinterpret(try self.integer(node, as: UInt64.self), as: T.self) }
        // JSONDecoder reads these from strings, base64 or numbers of its own choosing.
        if type == Date.self || type == Data.self || type == URL.self || type == Decimal.self { throw CompactJSON.Unsupported() }
        return try T(from: CompactNodeDecoder(node: node, codingPath: codingPath(), decoding: T.self))
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

    /// Finite values only: JSONDecoder refuses a number too large for the type.
    static func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ node: CompactJSONNode, as type: T.Type) throws -> T {
        guard case .number(let text) = node, let value = T(text), value.isFinite else { throw CompactJSON.Unsupported() }
        return value
    }
}

struct CompactNodeDecoder: Decoder {
    let node: CompactJSONNode
    let codingPath: [any CodingKey]
    /// The type this decoder was made for, when a value decodes itself.
    var decoding: Any.Type? = nil
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let keys, let values) = self.node else { throw CompactJSON.Unsupported() }
        return KeyedDecodingContainer(CompactKeyedContainer<Key>(keys: keys, values: values, codingPath: self.codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = self.node else { throw CompactJSON.Unsupported() }
        return CompactUnkeyedContainer(elements: elements, codingPath: self.codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CompactSingleValueContainer(node: self.node, codingPath: self.codingPath, owner: self.decoding)
    }
}

struct CompactKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let keys: [String]
    let values: [CompactJSONNode]
    let codingPath: [any CodingKey]
    /// Positions by key, for an object with many members (a dictionary): a linear search per
    /// member would make reading it quadratic. A struct's few keys are searched in order.
    private let positions: [String: Int]?

    init(keys: [String], values: [CompactJSONNode], codingPath: [any CodingKey]) {
        self.keys = keys
        self.values = values
        self.codingPath = codingPath
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
        try CompactDecoding.value(try self.node(key), as: type, codingPath: self.codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try CompactNodeDecoder(node: try self.node(key), codingPath: self.codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CompactNodeDecoder(node: try self.node(key), codingPath: self.codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw CompactJSON.Unsupported() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw CompactJSON.Unsupported() }
}

struct CompactUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [CompactJSONNode]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [CompactJSONNode], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
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
        return try CompactDecoding.value(try self.next(), as: type, codingPath: self.codingPath + [CompactIndexKey(intValue: index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = self.codingPath + [CompactIndexKey(intValue: self.currentIndex)]
        return try CompactNodeDecoder(node: try self.next(), codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = self.codingPath + [CompactIndexKey(intValue: self.currentIndex)]
        return try CompactNodeDecoder(node: try self.next(), codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw CompactJSON.Unsupported() }
}

struct CompactSingleValueContainer: SingleValueDecodingContainer {
    let node: CompactJSONNode
    let codingPath: [any CodingKey]
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
        return try CompactDecoding.value(self.node, as: type, codingPath: self.codingPath)
    }
}

/// The coding key of an array element.
struct CompactIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(self.intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
