/// Finds the byte ranges of the top-level members of one JSON object without decoding the
/// nested values, so an envelope's `params` or `result` can be handed to `JSONDecoder` alone.
///
/// It checks the object's structure (strings, brackets, literals, separators, nothing after
/// the closing brace); the values it does not read are checked by whoever decodes them.
struct JSONObjectScanner {
    struct Malformed: Error {}

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Calls `body` with the byte range of each member's key (inside its quotes, escapes left
    /// as written) and of its value, in order, without making a `String` of either; throws
    /// `Malformed` for a malformed object (after calling `body` for the members before the fault).
    static func forEachMember(
        of bytes: UnsafeRawBufferPointer, _ body: (_ key: Range<Int>, _ value: Range<Int>) throws -> Void
    ) throws {
        var scanner = JSONObjectScanner(bytes)
        try scanner.object(body)
    }

    private mutating func object(_ body: (_ key: Range<Int>, _ value: Range<Int>) throws -> Void) throws {
        self.skipWhitespace()
        try self.expect(UInt8(ascii: "{"))
        self.skipWhitespace()
        if self.peek() == UInt8(ascii: "}") {
            self.index += 1
        } else {
            while true {
                self.skipWhitespace()
                let keyRange = try self.string()
                self.skipWhitespace()
                try self.expect(UInt8(ascii: ":"))
                self.skipWhitespace()
                let start = self.index
                try self.value()
                try body((keyRange.lowerBound + 1)..<(keyRange.upperBound - 1), start..<self.index)
                self.skipWhitespace()
                guard let next = self.next() else { throw Malformed() }
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { throw Malformed() }
            }
        }
        self.skipWhitespace()
        guard self.index == self.bytes.count else { throw Malformed() }
    }

    /// Skips one value of any kind.
    private mutating func value() throws {
        guard let byte = self.peek() else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "\""):
            _ = try self.string()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            try self.container()
        case UInt8(ascii: "t"):
            try self.literal("true")
        case UInt8(ascii: "f"):
            try self.literal("false")
        case UInt8(ascii: "n"):
            try self.literal("null")
        default:
            let start = self.index
            while let byte = self.peek(), Self.isNumberByte(byte) { self.index += 1 }
            guard self.index > start else { throw Malformed() }
        }
    }

    /// Skips a nested object or array, matching brackets and skipping strings. The open
    /// brackets are bits of a word (1 for an object) while they are at most 64 deep, and an
    /// array beyond: no allocation for the usual result.
    private mutating func container() throws {
        var open: UInt64 = 0
        var depth = 0
        var deeper: [Bool] = []
        repeat {
            guard let byte = self.peek() else { throw Malformed() }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                if depth < 64 {
                    open = open << 1 | (isObject ? 1 : 0)
                } else {
                    deeper.append(isObject)
                }
                depth += 1
                self.index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw Malformed() }
                let wasObject: Bool
                if depth > 64 {
                    wasObject = deeper.removeLast()
                } else {
                    wasObject = open & 1 == 1
                    open >>= 1
                }
                guard wasObject == (byte == UInt8(ascii: "}")) else { throw Malformed() }
                depth -= 1
                self.index += 1
            case UInt8(ascii: "\""): _ = try self.string()
            case 0..<0x20 where !Self.isWhitespace(byte): throw Malformed()
            default: self.index += 1
            }
        } while depth > 0
    }

    /// Skips a string and returns its range, quotes included. Most of a result's bytes are
    /// inside strings: the loop keeps its position in a local and passes over eight bytes at a
    /// time while none of them is a quote, a backslash or a control character.
    private mutating func string() throws -> Range<Int> {
        let start = self.index
        try self.expect(UInt8(ascii: "\""))
        var index = self.index
        let end = self.bytes.count
        while index < end {
            if index + 8 <= end, !Self.mayEndOrEscape(self.bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = self.bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") {
                self.index = index
                return start..<index
            }
            if byte == UInt8(ascii: "\\") {
                guard index < end else { throw Malformed() }
                index += 1
            } else if byte < 0x20 {
                throw Malformed()
            }
        }
        throw Malformed()
    }

    /// Whether any of the eight bytes of `word` is a quote, a backslash or below 0x20 (exact:
    /// the borrows of these tests never make a byte look like one it is not).
    @inline(__always)
    static func mayEndOrEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highs != 0 }
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let control = (word &- ones &* 0x20) & ~word & highs != 0
        return hasZeroByte(quote) || hasZeroByte(backslash) || control
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard self.index + count <= self.bytes.count else { throw Malformed() }
        for offset in 0..<count where self.bytes[self.index + offset] != word.utf8Start[offset] {
            throw Malformed()
        }
        self.index += count
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard self.next() == byte else { throw Malformed() }
    }

    private func peek() -> UInt8? {
        self.index < self.bytes.count ? self.bytes[self.index] : nil
    }

    private mutating func next() -> UInt8? {
        guard self.index < self.bytes.count else { return nil }
        defer { self.index += 1 }
        return self.bytes[self.index]
    }

    private mutating func skipWhitespace() {
        while let byte = self.peek(), Self.isWhitespace(byte) { self.index += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }
}
