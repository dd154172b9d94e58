import ServiceLaunch
import Testing

/// What a launcher sets before it becomes `latchkey-services` (docs/deploy.md, "Tuning"): the
/// malloc thresholds for every service, OpenSSL's AVX2 routine for `tokens` where it is the
/// faster, and nothing an operator already decided.
@Suite(.timeLimit(.minutes(1))) struct LaunchTuningTests {
    static let zen3 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: avx2 bmi2 adx\n\n"
    static let intel = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nflags\t\t: avx2 bmi2 adx\n\n"

    @Test(arguments: LatchkeyService.allCases)
    func everyServiceGetsTheMallocThresholds(_ service: LatchkeyService) {
        let settings = LaunchTuning.settings(for: service, environment: [:], cpuinfo: Self.intel)
        #expect(settings == ["GLIBC_TUNABLES": LaunchTuning.mallocTunables])
    }

    @Test func onlyTokensOnZen3GetsTheAVX2Routine() {
        #expect(LaunchTuning.settings(for: .tokens, environment: [:], cpuinfo: Self.zen3)["OPENSSL_ia32cap"] == ":~0x80000")
        #expect(LaunchTuning.settings(for: .identity, environment: [:], cpuinfo: Self.zen3)["OPENSSL_ia32cap"] == nil)
        #expect(LaunchTuning.settings(for: .tokens, environment: [:], cpuinfo: Self.intel)["OPENSSL_ia32cap"] == nil)
        #expect(LaunchTuning.settings(for: .tokens, environment: [:], cpuinfo: nil)["OPENSSL_ia32cap"] == nil)
    }

    @Test func anOperatorsSettingsWin() {
        let own = ["OPENSSL_ia32cap": ":~0", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]
        #expect(LaunchTuning.settings(for: .tokens, environment: own, cpuinfo: Self.zen3).isEmpty)
        // Other tunables are kept, the thresholds added to them.
        let other = LaunchTuning.settings(for: .gateway, environment: ["GLIBC_TUNABLES": "glibc.pthread.rseq=0"], cpuinfo: nil)
        #expect(other["GLIBC_TUNABLES"] == "glibc.pthread.rseq=0:" + LaunchTuning.mallocTunables)
    }

    @Test func theStartupLineSaysWhoSetWhat() {
        let launched = LaunchTuning.startupMetadata(environment: [
            "GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1048576", LaunchTuning.recordVariable: "GLIBC_TUNABLES=" + LaunchTuning.mallocTunables,
            "OPENSSL_ia32cap": ":~0",
        ])
        #expect(launched.map(\.key) == ["tuning.launcher", "tuning.operator.OPENSSL_ia32cap"])
        #expect(launched.first?.value == "GLIBC_TUNABLES=" + LaunchTuning.mallocTunables)
        #expect(LaunchTuning.startupMetadata(environment: [:]).map(\.value) == ["none"])
    }
}
