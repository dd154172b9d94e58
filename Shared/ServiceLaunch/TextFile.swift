#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A text file read whole with `open` and `read` (no Foundation): `/proc/cpuinfo` for the
/// launchers' tuning, `/proc/self/smaps` for `FileMappings`.
public enum TextFile {
    /// The file's contents, up to `limit` bytes (from 64 kB reads); nil when it cannot be opened or
    /// a read fails (a read cut short by a signal is retried).
    public static func contents(of path: String, limit: Int = 1 << 20) -> String? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
