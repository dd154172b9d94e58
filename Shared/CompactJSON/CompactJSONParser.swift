import FoundationEssentials
import TextCoding

/// A parsed JSON value. Numbers keep their text, so each is converted once, to the type asked.
public enum CompactJSONNode: Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([CompactJSONNode])
    case object(keys: [String], values: [CompactJSONNode])
}

/// Parses JSON text into `CompactJSONNode`s: the strict subset the compact decoder reads.
public struct CompactJSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private static let maximumDepth = 512

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// One value with nothing but whitespace around it.
    public mutating func document() throws -> CompactJSONNode {
        let value = try self.value(depth: 0)
        self.skipWhitespace()
        guard self.index == self.bytes.count else { throw CompactJSON.Unsupported() }
        return value
    }

    // Reading a document in place, for a type that reads its own spelling (`CompactJSONReadable`):
    // the same rules as `document()`, without building nodes. Each throws `Unsupported` where
    // `document()` would, and also where the reader meets what it does not expect.

    /// An object: `member` is called with each key (a repeated key is refused, as `document()`
    /// refuses it) while the parser stands before the member's value, which `member` must read.
    public mutating func readObject(_ member: (String, inout CompactJSONParser) throws -> Void) throws {
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "{") else { throw CompactJSON.Unsupported() }
        if self.open(closedBy: UInt8(ascii: "}")) { return }
        var keys: [String] = []
        var seen: Set<String> = []
        while true {
            let key = try self.memberKey(after: keys, seen: &seen)
            keys.append(key)
            try member(key, &self)
            if try self.next(closedBy: UInt8(ascii: "}")) { return }
        }
    }

    /// A string, escapes decoded and UTF-8 validated.
    public mutating func readString() throws -> String {
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else { throw CompactJSON.Unsupported() }
        return try self.string()
    }

    /// A string, or nil for `null`: an optional member as `decodeIfPresent` reads it.
    public mutating func readStringOrNull() throws -> String? {
        try self.readNull() ? nil : self.readString()
    }

    /// True, past it, when the value ahead is `null`; false, the parser where it was, otherwise.
    public mutating func readNull() throws -> Bool {
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "n") else { return false }
        try self.literal("null")
        return true
    }

    /// An array of strings.
    public mutating func readStringArray() throws -> [String] {
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "[") else { throw CompactJSON.Unsupported() }
        var strings: [String] = []
        if self.open(closedBy: UInt8(ascii: "]")) { return strings }
        while true {
            strings.append(try self.readString())
            if try self.next(closedBy: UInt8(ascii: "]")) { return strings }
        }
    }

    /// A string that is a UUID, read as the compact decoder reads one (`UUID(text:)`).
    public mutating func readUUID() throws -> UUID {
        guard let id = UUID(text: try self.readString()) else { throw CompactJSON.Unsupported() }
        return id
    }

    /// A number that `Int` reads whole: no fraction, no exponent, within `Int`'s range.
    public mutating func readInteger() throws -> Int {
        self.skipWhitespace()
        guard let value = Int(try self.number(), radix: 10) else { throw CompactJSON.Unsupported() }
        return value
    }

    /// `true` or `false`.
    public mutating func readBool() throws -> Bool {
        self.skipWhitespace()
        guard self.index < self.bytes.count else { throw CompactJSON.Unsupported() }
        switch self.bytes[self.index] {
        case UInt8(ascii: "t"): try self.literal("true"); return true
        case UInt8(ascii: "f"): try self.literal("false"); return false
        default: throw CompactJSON.Unsupported()
        }
    }

    /// Any value, read and dropped: a member the reader does not use.
    public mutating func skipValue() throws {
        _ = try self.value(depth: 1)
    }

    /// Nothing but whitespace is left: the value read was the whole document.
    public mutating func readEnd() throws {
        self.skipWhitespace()
        guard self.index == self.bytes.count else { throw CompactJSON.Unsupported() }
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
            keys.append(try self.memberKey(after: keys, seen: &seen))
            values.append(try self.value(depth: depth + 1))
            if try self.next(closedBy: UInt8(ascii: "}")) { return .object(keys: keys, values: values) }
        }
    }

    /// A member's key and the colon after it. A key among `keys` (the object's so far) is
    /// refused: JSONDecoder keeps the first of duplicate keys; leave such documents to it. A
    /// linear search is cheapest for the few keys of a struct; past 16, `seen` holds them as a
    /// set, for a dictionary's.
    private mutating func memberKey(after keys: [String], seen: inout Set<String>) throws -> String {
        let key = try self.readString()
        if keys.count < 16 {
            if keys.contains(key) { throw CompactJSON.Unsupported() }
        } else {
            if seen.isEmpty { seen = Set(keys) }
            if !seen.insert(key).inserted { throw CompactJSON.Unsupported() }
        }
        self.skipWhitespace()
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else { throw CompactJSON.Unsupported() }
        self.index += 1
        return key
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
        // The OR of the string's bytes: below 0x80, all are ASCII and need no validation
        // (`String(validating:as:)` looks up generic metadata on every call).
        var highBits: UInt8 = 0
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let utf8 = UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index])
                let text = highBits < 0x80 ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
                self.index += 1
                guard let text else { throw CompactJSON.Unsupported() }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try self.escapedString(from: start) }
            if byte < 0x20 { throw CompactJSON.Unsupported() }
            highBits |= byte
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
