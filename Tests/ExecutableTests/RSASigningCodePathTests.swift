import Foundation
import ServiceLaunch
import TestSupport
import Testing
import TokensAPI

/// `tokens` signs on OpenSSL's AVX2 routine where that is the faster (AMD family 19h without
/// AVX-512 IFMA): its launcher starts it with `OPENSSL_ia32cap` (`LaunchTuning`); an operator's value wins.
@Suite(.timeLimit(.minutes(5))) struct RSASigningCodePathTests {
    /// A `/proc/cpuinfo` of two processors of one model.
    static func cpuinfo(vendor: String, family: Int, flags: String) -> String {
        (0..<2).map { processor in
            """
            processor\t: \(processor)
            vendor_id\t: \(vendor)
            cpu family\t: \(family)
            model\t\t: 1
            model name\t: Some processor
            flags\t\t: fpu vme \(flags) sse4_2
            bugs\t\t: sysret_ss_attrs

            """
        }.joined()
    }

    @Test func onlyAMDFamily19hWithoutIFMAGetsTheAVX2Routine() {
        let zen3 = "avx2 bmi1 bmi2 adx sha_ni vaes"
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "AuthenticAMD", family: 25, flags: zen3)) == ":~0x80000")
        // Zen 4: OpenSSL's AVX-512 IFMA routine is the one to keep.
        let zen4 = zen3 + " avx512f avx512ifma avx512vl"
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "AuthenticAMD", family: 25, flags: zen4)) == nil)
        // Other families and vendors: not measured, OpenSSL's choice stands.
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "AuthenticAMD", family: 23, flags: zen3)) == nil)
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "GenuineIntel", family: 6, flags: zen3)) == nil)
        // Without ADX (or AVX2) OpenSSL does not run MULX's routine anyway.
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "AuthenticAMD", family: 25, flags: "avx2 bmi2")) == nil)
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "AuthenticAMD", family: 25, flags: "bmi2 adx")) == nil)
        #expect(RSASigningCodePath.capabilities(cpuinfo: "") == nil)
        #expect(RSASigningCodePath.capabilities(cpuinfo: "processor : 0\nflags : avx2 bmi2 adx\n") == nil)
        // A flag only shares a prefix: "adx" is not "adxx".
        #expect(RSASigningCodePath.capabilities(cpuinfo: Self.cpuinfo(vendor: "AuthenticAMD", family: 25, flags: "avx2 bmi2 adxx")) == nil)
    }

    /// The variables a running process was started (or last replaced) with.
    static func environment(of process: ServiceProcess) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.process.processIdentifier)/environ"))
        var variables: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return variables
    }

    /// The tokens process the launcher started is, under the same pid, `latchkey-services`
    /// with the variable this machine's processor calls for (and logs it), or without it.
    @Test func tokensRunsWithTheVariableThisMachineCallsFor() async throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let expected = RSASigningCodePath.capabilities(cpuinfo: cpuinfo)
        let backend = try await BackendProcess.started("tokens", ["LOG_LEVEL": "info", "LOG_FORMAT": "text"])
        let environment = try Self.environment(of: backend.process)
        #expect(environment[RSASigningCodePath.variable] == expected)
        #expect(try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/\(backend.process.process.processIdentifier)/exe").hasSuffix("/latchkey-services"))
        // A token it signs on that routine verifies (verification is BoringSSL's, by JWTKit).
        let user = UUID()
        let pair = try await backend.withClient { try await $0.call(Tokens.issue, IssueParams(userID: user)) }
        let claims = try await backend.withClient { try await $0.call(Tokens.verify, VerifyParams(accessToken: pair.accessToken)) }
        #expect(claims.sessionID == pair.sessionID && claims.userID == user)
        backend.process.terminate()
        #expect(await backend.process.waitForExit(timeout: .seconds(60)) == 0)
        if let expected {
            #expect(backend.process.stdout.contains("OPENSSL_ia32cap=\(expected)"), "\(backend.process.stdout)")
        } else {
            #expect(!backend.process.stdout.contains("OPENSSL_ia32cap="), "\(backend.process.stdout)")
        }
    }

    /// An operator's OPENSSL_ia32cap is left as it is, and a service that does not sign
    /// (identity) never gets one.
    @Test func anOperatorsValueWinsAndOtherServicesAreLeftAlone() async throws {
        let tokens = try await BackendProcess.started("tokens", [RSASigningCodePath.variable: ":~0", "LOG_LEVEL": "info", "LOG_FORMAT": "text"])
        #expect(try Self.environment(of: tokens.process)[RSASigningCodePath.variable] == ":~0")
        let identity = try await BackendProcess.started("identity")
        let identityEnvironment = try Self.environment(of: identity.process)
        #expect(identityEnvironment[RSASigningCodePath.variable] == nil)
        // Every service gets the malloc thresholds from its launcher, which says so for the
        // start-up line (glibc cuts the variable at its first `:` once it has read it).
        let tunables = LaunchTuning.mallocTunables(processors: LaunchTuning.onlineProcessors)
        #expect(identityEnvironment["GLIBC_TUNABLES"].map { tunables.hasPrefix($0) && !$0.isEmpty } == true)
        #expect(identityEnvironment[LaunchTuning.recordVariable] == "GLIBC_TUNABLES=" + tunables)
        for backend in [tokens, identity] {
            backend.process.terminate()
            #expect(await backend.process.waitForExit(timeout: .seconds(60)) == 0)
        }
        #expect(tokens.process.stdout.contains("tuning.operator.OPENSSL_ia32cap=:~0"), "\(tokens.process.stdout)")
    }
}
