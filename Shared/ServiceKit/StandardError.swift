#if canImport(Glibc)
import Glibc
#endif

/// Standard error, for what is written before a logger runs: a usage line, a configuration
/// error. Written at once, with no buffer to lose at `exit`.
public enum StandardError {
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
