/// A growing run of bytes for JSON written by hand (`RawJSON`'s storage): each write is a
/// capacity check and a copy into memory it owns. A page of results is thousands of writes of
/// a few bytes; appended to a `[UInt8]`, each took about 13 ns through `append(contentsOf:)`
/// and `memmove`, here about 2 (docs/benchmarks.md).
///
/// A value type: a copy shares the bytes until either is written to, which then copies them
/// first (`@unchecked Sendable` on that ground: bytes another value can see are never written).
public struct JSONBytes: @unchecked Sendable {
    /// Its properties are written only by the one value that holds it alone (`reserve`), so
    /// they go without the run-time exclusivity checks of a class's properties (which cost
    /// more than the copy of a few bytes they guard).
    @usableFromInline final class Storage {
        @exclusivity(unchecked) @usableFromInline var base: UnsafeMutablePointer<UInt8>
        @exclusivity(unchecked) @usableFromInline var count: Int
        @exclusivity(unchecked) @usableFromInline var capacity: Int

        @usableFromInline init(capacity: Int) {
            self.capacity = Swift.max(capacity, 16)
            self.base = .allocate(capacity: self.capacity)
            self.count = 0
        }

        deinit { self.base.deallocate() }

        /// A new storage of at least `capacity` bytes holding these bytes.
        @usableFromInline func copy(capacity: Int) -> Storage {
            let copy = Storage(capacity: capacity)
            copy.base.update(from: self.base, count: self.count)
            copy.count = self.count
            return copy
        }
    }

    @usableFromInline var storage: Storage

    public init(capacity: Int = 256) {
        self.storage = Storage(capacity: capacity)
    }

    /// The number of bytes written.
    @inlinable public var count: Int { self.storage.count }

    /// Where the next `byteCount` bytes go: room for them, in storage no other value shares.
    /// The caller writes them there and then calls `didWrite`.
    @inlinable @inline(__always)
    mutating func reserve(_ byteCount: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(!isKnownUniquelyReferenced(&self.storage) || self.storage.count + byteCount > self.storage.capacity) {
            self.grow(byteCount)
        }
        return self.storage.base + self.storage.count
    }

    @inlinable @inline(__always)
    mutating func didWrite(_ byteCount: Int) {
        self.storage.count += byteCount
    }

    @usableFromInline
    mutating func grow(_ byteCount: Int) {
        let needed = self.storage.count + byteCount
        let capacity = needed > self.storage.capacity ? Swift.max(needed, self.storage.capacity * 2) : self.storage.capacity
        self.storage = self.storage.copy(capacity: capacity)
    }

    /// Writes `byteCount` bytes at most with `body`, which returns how many it wrote.
    @inlinable
    public mutating func write(atMost byteCount: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int) {
        let start = self.reserve(byteCount)
        let written = body(UnsafeMutableRawBufferPointer(start: start, count: byteCount))
        precondition(written <= byteCount, "JSONBytes: more bytes written than reserved")
        self.didWrite(written)
    }

    /// The bytes written, for reading in place.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self.storage) {
            try body(UnsafeRawBufferPointer(start: self.storage.base, count: self.storage.count))
        }
    }

    /// The bytes written, as an array.
    public var array: [UInt8] {
        self.withUnsafeBytes { Array($0) }
    }
}

extension JSONBytes: JSONByteSink {
    /// Always inlined: a literal's length is then a constant, and its copy a few moves
    /// instead of a call of `memmove`.
    @inlinable @inline(__always)
    public mutating func write(_ literal: StaticString) {
        let count = literal.utf8CodeUnitCount
        self.reserve(count).update(from: literal.utf8Start, count: count)
        self.didWrite(count)
    }

    @inlinable
    public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        self.reserve(bytes.count).update(from: source, count: bytes.count)
        self.didWrite(bytes.count)
    }

    /// `true` or `false`.
    @inlinable @inline(__always)
    public mutating func write(bool: Bool) {
        if bool { self.write("true") } else { self.write("false") }
    }

    @inlinable @inline(__always)
    public mutating func write(byte: UInt8) {
        self.reserve(1).initialize(to: byte)
        self.didWrite(1)
    }
}
