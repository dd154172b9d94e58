#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a launcher does to the running process: replace it with another executable, or say on
/// standard error why it could not (before anything else, so without Foundation or a logger).
enum ProcessImage {
    /// Replaces this process (same pid, same environment) with `path` run with `arguments` (the
    /// first is the name it runs under). Returns only when it could not, with the reason.
    static func replace(with path: String, arguments: [String]) -> String {
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        execv(path, cArguments)
        return String(cString: strerror(errno))
    }

    /// Writes `line` and a newline to standard error.
    static func complain(_ line: String) {
        _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
    }
}
