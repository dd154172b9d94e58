#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The four services, all in one executable, `latchkey-services`: each process maps the same
/// file, so the code they all run (NIO, the RPC protocol, the Postgres and Redis clients, the
/// service kit, JWTKit and swift-crypto) is in memory once for the four instead of once per
/// service (docs/benchmarks.md, memory). `gateway`, `identity`, `tokens` and
/// `content-state` are small launchers that run it (`execLatchkeyServices`); a link named like a
/// service works too (the container image has them).
public enum LatchkeyService: String, CaseIterable, Sendable {
    case gateway
    case identity
    case tokens
    case contentState = "content-state"

    /// The name of the executable holding the four.
    public static let executableName = "latchkey-services"

    /// The service `arguments` (a process's, the executable's path first) ask for, and the
    /// arguments left for it: the first argument when it names a service
    /// (`latchkey-services tokens keygen`), else the executable's own name (`tokens keygen`
    /// through a launcher or link). Nil when neither names one.
    public static func requested(by arguments: [String]) -> (service: LatchkeyService, arguments: [String])? {
        if arguments.count > 1, let service = LatchkeyService(rawValue: arguments[1]) {
            return (service, Array(arguments.dropFirst(2)))
        }
        if let invokedAs = arguments.first.map(Self.baseName), let service = LatchkeyService(rawValue: invokedAs) {
            return (service, Array(arguments.dropFirst()))
        }
        return nil
    }

    /// The last component of a path.
    static func baseName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path))
    }

    /// Names the process after the service (its main thread's name, which `ps`, `top` and
    /// `/proc/PID/comm` show), where it would otherwise be the executable's: every service
    /// would read `latchkey-servic`.
    /// Linux: written to `/proc/self/comm`, the main thread's (elsewhere nothing changes).
    public func nameProcess() {
        let file = open("/proc/self/comm", O_WRONLY)
        guard file >= 0 else { return }
        defer { close(file) }
        _ = self.rawValue.withCString { write(file, $0, strlen($0)) }
    }

    /// What `latchkey-services` says when no service is named.
    public static var usage: String {
        "usage: \(executableName) {\(allCases.map(\.rawValue).joined(separator: "|"))} [arguments]\n"
    }

    /// Replaces this process (same pid, same environment plus `LaunchTuning`'s settings) with
    /// `latchkey-services` from the folder of the running executable, running `self` with
    /// `arguments` (the process's own, the executable's path first). Returns only if it could
    /// not: it then writes why to standard error and exits with 127.
    public func execLatchkeyServices(arguments: [String]) -> Never {
        LaunchTuning.apply(for: self)
        let folder = Self.folderOfRunningExecutable(fallback: arguments.first ?? ".")
        let path = folder + "/" + Self.executableName
        let argv = [arguments.first ?? self.rawValue, self.rawValue] + arguments.dropFirst()
        let reason = ProcessImage.replace(with: path, arguments: argv)
        ProcessImage.complain(
            "\(self.rawValue): cannot run \(path): \(reason) (it is built with the services: swift build --product \(Self.executableName))")
        exit(127)
    }

    /// The folder of the running executable: `/proc/self/exe`'s target, else the folder of
    /// `fallback` (the path the process was started with).
    static func folderOfRunningExecutable(fallback: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : fallback
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
