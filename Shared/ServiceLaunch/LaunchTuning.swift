#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process settings a launcher gives a service as it starts it, decided here and nowhere
/// else (docs/deploy.md, "Tuning", has the measurements behind each). Both are environment
/// variables read once when the process starts, so the launcher, which replaces itself with
/// `latchkey-services` anyway, sets them before that and no process starts itself again. The
/// service logs what it runs with at start. An operator's own value always wins.
///
/// - `GLIBC_TUNABLES` (every service): glibc keeps up to 1 MiB freed at a heap's top and serves
///   blocks under 512 KiB from the heap. By default it gives back the top once 128 KiB is free
///   and maps blocks of 128 KiB or more, so a heap that grew and shrank with every request's
///   page of rows or response faulted its pages in again: content-state took 1.7–2.9 page
///   faults a changes page, about a tenth of its CPU. And it keeps one heap (arena) per
///   processor, not glibc's eight: each thread that allocates gets an arena of its own up to
///   that limit, and a service's blocking pools (libpq's, hiredis's) hold a dozen threads that
///   allocate now and then, each arena's pages resident for little use. Left alone when the
///   variable already names a `glibc.malloc` setting; added to its other settings otherwise.
/// - `OPENSSL_ia32cap` (`tokens` only): on AMD family 19h processors without AVX-512 IFMA,
///   OpenSSL's AVX2 routine signs RSA-2048 13–20 % faster than the MULX/ADX one it would pick
///   (`RSASigningCodePath`). Left alone when set (`:~0` keeps OpenSSL's own choice).
public enum LaunchTuning {
    /// glibc's malloc settings for a machine with `processors` online processors, as
    /// `GLIBC_TUNABLES` spells them.
    public static func mallocTunables(processors: Int) -> String {
        "glibc.malloc.trim_threshold=1048576:glibc.malloc.mmap_threshold=524288:glibc.malloc.arena_max=\(max(1, processors))"
    }

    /// The variables to set for `service`, given the environment it would start with, this
    /// machine's online processors and its `/proc/cpuinfo` (nil when unreadable): only those
    /// that change.
    public static func settings(
        for service: LatchkeyService, environment: [String: String], processors: Int, cpuinfo: String?
    ) -> [String: String] {
        var settings: [String: String] = [:]
        let tunables = environment["GLIBC_TUNABLES"] ?? ""
        if !tunables.contains("glibc.malloc.") {
            let malloc = mallocTunables(processors: processors)
            settings["GLIBC_TUNABLES"] = tunables.isEmpty ? malloc : tunables + ":" + malloc
        }
        if service == .tokens, environment[RSASigningCodePath.variable] == nil,
            let capabilities = cpuinfo.flatMap(RSASigningCodePath.capabilities(cpuinfo:))
        {
            settings[RSASigningCodePath.variable] = capabilities
        }
        return settings
    }

    /// Where the launcher writes what it set (`NAME=value` pairs, space-separated) for the
    /// service's start-up line: glibc cuts `GLIBC_TUNABLES` at its first `:` once it has read it,
    /// so the service cannot read its own value back whole.
    public static let recordVariable = "LATCHKEY_LAUNCH_TUNING"

    /// Sets this process's environment for `service` before it becomes `latchkey-services`.
    static func apply(for service: LatchkeyService) {
        var environment: [String: String] = [:]
        for name in ["GLIBC_TUNABLES", RSASigningCodePath.variable] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        let cpuinfo = service == .tokens ? TextFile.contents(of: "/proc/cpuinfo") : nil
        let settings = settings(for: service, environment: environment, processors: onlineProcessors, cpuinfo: cpuinfo)
            .sorted { $0.key < $1.key }
        for (name, value) in settings {
            setenv(name, value, 1)
        }
        setenv(recordVariable, settings.map { "\($0.key)=\($0.value)" }.joined(separator: " "), 1)
    }

    /// The processors online, as glibc counts them for its own arena limit (eight per processor).
    public static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The start-up line's metadata: what the launcher set (`tuning.launcher`, "none" when it
    /// set nothing or the service started without it) and each tuning variable the operator set.
    public static func startupMetadata(environment: [String: String]) -> [(key: String, value: String)] {
        let launcher = environment[recordVariable] ?? ""
        var metadata = [(key: "tuning.launcher", value: launcher.isEmpty ? "none" : launcher)]
        for name in ["GLIBC_TUNABLES", RSASigningCodePath.variable] where !launcher.contains(name + "=") {
            if let value = environment[name] { metadata.append((key: "tuning.operator." + name, value: value)) }
        }
        return metadata
    }
}
