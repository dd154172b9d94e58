import Foundation

extension UUID {
    /// A random (version 4) UUID from the standard library's secure generator, which on Linux
    /// reads `getrandom`. Foundation's `UUID()` opens, reads and closes `/dev/urandom` for each
    /// one: three system calls, on every request that needs an id.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 4122 variant
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}
