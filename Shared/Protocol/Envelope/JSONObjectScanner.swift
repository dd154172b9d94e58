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
    /// array beyond: no allocation for the usual result. Bytes are classed by a table
    /// (`ByteClass`), and the position kept in a local while the loop runs.
    private mutating func container() throws {
        var open: UInt64 = 0
        var depth = 0
        var deeper: [Bool] = []
        guard let base = self.bytes.baseAddress else { throw Malformed() }
        let end = self.bytes.count
        var index = self.index
        try ByteClass.table.withUnsafeBufferPointer { table in
            repeat {
                guard index < end else { throw Malformed() }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                switch table[Int(byte)] {
                case ByteClass.plain:
                    continue
                case ByteClass.opening:
                    let isObject = byte == UInt8(ascii: "{")
                    if depth < 64 {
                        open = open << 1 | (isObject ? 1 : 0)
                    } else {
                        deeper.append(isObject)
                    }
                    depth += 1
                case ByteClass.closing:
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
                case ByteClass.quote:
                    index = try Self.stringEnd(base, from: index, end: end)
                default:
                    throw Malformed()
                }
            } while depth > 0
        }
        self.index = index
    }

    /// What `container` does with each byte value.
    private enum ByteClass {
        static let plain: UInt8 = 0, opening: UInt8 = 1, closing: UInt8 = 2, quote: UInt8 = 3, control: UInt8 = 4

        static let table: [UInt8] = (0..<256).map { value in
            switch UInt8(value) {
            case UInt8(ascii: "{"), UInt8(ascii: "["): opening
            case UInt8(ascii: "}"), UInt8(ascii: "]"): closing
            case UInt8(ascii: "\""): quote
            case 0x20, 0x0A, 0x0D, 0x09: plain
            case 0..<0x20: control
            default: plain
            }
        }
    }

    /// Skips a string and returns its range, quotes included. Most of a result's bytes are
    /// inside strings: the loop keeps its position in a local and passes over eight bytes at a
    /// time while none of them is a quote, a backslash or a control character.
    private mutating func string() throws -> Range<Int> {
        let start = self.index
        try self.expect(UInt8(ascii: "\""))
        guard let base = self.bytes.baseAddress else { throw Malformed() }
        self.index = try Self.stringEnd(base, from: self.index, end: self.bytes.count)
        return start..<self.index
    }

    /// The index after the closing quote of the string whose content starts at `start`.
    @inline(__always)
    private static func stringEnd(_ base: UnsafeRawPointer, from start: Int, end: Int) throws -> Int {
        var index = start
        while index < end {
            if index + 8 <= end {
                // The lowest flagged byte of the word is the first that ends or escapes.
                let flags = Self.endOrEscapeFlags(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
                guard flags != 0 else {
                    index += 8
                    continue
                }
                index += flags.trailingZeroBitCount >> 3
            }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            index += 1
            if byte == UInt8(ascii: "\"") { return index }
            if byte == UInt8(ascii: "\\") {
                guard index < end else { throw Malformed() }
                index += 1
            } else if byte < 0x20 {
                throw Malformed()
            }
        }
        throw Malformed()
    }

    /// The high bit of each byte of `word` (its first byte lowest) that may be a quote, a backslash or
    /// below 0x20: the lowest flag is exact (a borrow only ever flags a byte above a true one),
    /// and no flag at all means none of the eight is.
    @inline(__always)
    static func endOrEscapeFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let control = (word &- ones &* 0x20) & ~word & highs
        return zeroBytes(quote) | zeroBytes(backslash) | control
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
