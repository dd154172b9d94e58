import CGlibcExtras
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

extension UUID {
    /// A random (version 4) UUID whose bytes come from the kernel's secure generator
    /// (`RandomPool`). Foundation's `UUID()` opens, reads and closes `/dev/urandom` for each
    /// one: three system calls, on every request that needs an id.
    public static func random() -> UUID {
        var bytes = RandomPool.shared.next16()
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 4122 variant
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}

/// Bytes of the kernel's secure generator (`getrandom`) read 4 KiB at a time and handed out
/// once each: a made-up request id took two `getrandom` calls of eight bytes (the standard
/// library's generator), now a 256th of one. The bytes are the kernel's, unchanged.
///
/// A lock, not an actor: every request takes ids from it, from synchronous code.
final class RandomPool: Sendable {
    static let shared = RandomPool()

    private struct State {
        var words = [UInt64](repeating: 0, count: 512)
        /// The next word not handed out; all are used up at first.
        var next = 512
    }
    private let state = Mutex(State())

    /// Sixteen bytes no other caller gets.
    func next16() -> (UInt64, UInt64) {
        self.state.withLock { state in
            if state.next + 2 > state.words.count {
                state.words.withUnsafeMutableBytes(Self.fill)
                state.next = 0
            }
            defer { state.next += 2 }
            return (state.words[state.next], state.words[state.next + 1])
        }
    }

    /// Fills `buffer` from the kernel. Up to 256 bytes are never short, nor is a larger read once
    /// the kernel's generator is seeded (`getrandom(2)`); a short or interrupted read is simply
    /// continued.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var filled = 0
        while filled < buffer.count {
            let count = getrandom(buffer.baseAddress! + filled, buffer.count - filled, 0)
            if count > 0 {
                filled += count
            } else if errno != EINTR {
                fatalError("getrandom failed: errno \(errno)")
            }
        }
    }
}
