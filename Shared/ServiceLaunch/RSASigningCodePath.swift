#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which of OpenSSL's x86-64 big-number routines `tokens` signs on. OpenSSL 3.0 picks its
/// Montgomery multiplication by CPU feature: AVX-512 IFMA where there is one, else MULX/ADX
/// where there are both, else AVX2 (for the two 1024-bit halves of an RSA-2048 private key).
/// On AMD's family 19h processors without AVX-512 IFMA (Zen 3: EPYC Milan, Ryzen 5000) the
/// AVX2 routine is the faster: an RSA-2048 signature, the largest single cost of a sign-in and
/// a refresh, takes 13-20 % less time on it (docs/benchmarks.md). There the launcher starts
/// `tokens` with ADX hidden from OpenSSL (`OPENSSL_ia32cap`, OpenSSL's documented switch, read
/// once when libcrypto loads; `LaunchTuning`), which turns its AVX2 routine on; everywhere else
/// OpenSSL's own choice stands.
///
/// An operator's `OPENSSL_ia32cap` always wins (`:~0` keeps OpenSSL's own choice). Only the
/// system OpenSSL that `RS256Signer` and libpq use reads it; JWTKit's and swift-crypto's
/// BoringSSL (verification, sealing, hashing) do not.
public enum RSASigningCodePath {
    /// The environment variable OpenSSL reads its CPU capabilities from.
    public static let variable = "OPENSSL_ia32cap"

    /// Clears ADX (CPUID leaf 7, EBX bit 19) from the capabilities OpenSSL detected, and no
    /// other: MULX's routine needs both BMI2 and ADX, so without ADX the AVX2 one runs.
    public static let avx2Capabilities = ":~0x80000"

    /// The `OPENSSL_ia32cap` value for a processor `/proc/cpuinfo` describes: `avx2Capabilities`
    /// for an AMD family 19h processor with AVX2, BMI2 and ADX and without AVX-512 IFMA; nil
    /// (OpenSSL's own choice) for any other, or a text that does not say.
    public static func capabilities(cpuinfo: String) -> String? {
        // Every processor has its own block; the first describes them all (one model per machine).
        var vendor: Substring?
        var family: Substring?
        var flags: Set<Substring>?
        for line in cpuinfo.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty, vendor != nil { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingWhitespace
            let value = line[line.index(after: colon)...].trimmingWhitespace
            switch name {
            case "vendor_id": vendor = value
            case "cpu family": family = value
            case "flags": flags = Set(value.split(separator: " "))
            default: continue
            }
        }
        guard vendor == "AuthenticAMD", family == "25", let flags,
            flags.isSuperset(of: ["avx2", "bmi2", "adx"]), !flags.contains("avx512ifma")
        else { return nil }
        return self.avx2Capabilities
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
