import ServiceLaunch
import Testing

/// What a launcher sets before it becomes `latchkey-services` (docs/deploy.md, "Tuning"): the
/// malloc thresholds and arena limit for every service, OpenSSL's AVX2 routine for `tokens`
/// where it is the faster, and nothing an operator already decided.
@Suite(.timeLimit(.minutes(1))) struct LaunchTuningTests {
    static let zen3 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: avx2 bmi2 adx\n\n"
    static let intel = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nflags\t\t: avx2 bmi2 adx\n\n"

    @Test(arguments: LatchkeyService.allCases)
    func everyServiceGetsTheMallocThresholds(_ service: LatchkeyService) {
        let settings = LaunchTuning.settings(for: service, environment: [:], processors: 2, cpuinfo: Self.intel)
        #expect(settings == ["GLIBC_TUNABLES": LaunchTuning.mallocTunables(processors: 2)])
    }

    /// One malloc arena per online processor (glibc's own limit is eight per processor).
    @Test func theArenaLimitFollowsTheProcessors() {
        #expect(LaunchTuning.mallocTunables(processors: 2).hasSuffix(":glibc.malloc.arena_max=2"))
        #expect(LaunchTuning.mallocTunables(processors: 16).hasSuffix(":glibc.malloc.arena_max=16"))
        #expect(LaunchTuning.mallocTunables(processors: 0).hasSuffix(":glibc.malloc.arena_max=1"))
        let settings = LaunchTuning.settings(for: .tokens, environment: [:], processors: 8, cpuinfo: nil)
        #expect(settings["GLIBC_TUNABLES"]?.contains("glibc.malloc.trim_threshold=1048576:") == true)
        #expect(settings["GLIBC_TUNABLES"]?.hasSuffix("arena_max=8") == true)
    }

    @Test func onlyTokensOnZen3GetsTheAVX2Routine() {
        #expect(LaunchTuning.settings(for: .tokens, environment: [:], processors: 2, cpuinfo: Self.zen3)["OPENSSL_ia32cap"] == ":~0x80000")
        #expect(LaunchTuning.settings(for: .identity, environment: [:], processors: 2, cpuinfo: Self.zen3)["OPENSSL_ia32cap"] == nil)
        #expect(LaunchTuning.settings(for: .tokens, environment: [:], processors: 2, cpuinfo: Self.intel)["OPENSSL_ia32cap"] == nil)
        #expect(LaunchTuning.settings(for: .tokens, environment: [:], processors: 2, cpuinfo: nil)["OPENSSL_ia32cap"] == nil)
    }

    @Test func anOperatorsSettingsWin() {
        let own = ["OPENSSL_ia32cap": ":~0", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]
        #expect(LaunchTuning.settings(for: .tokens, environment: own, processors: 2, cpuinfo: Self.zen3).isEmpty)
        // Other tunables are kept, the thresholds added to them.
        let other = LaunchTuning.settings(for: .gateway, environment: ["GLIBC_TUNABLES": "glibc.pthread.rseq=0"], processors: 2, cpuinfo: nil)
        #expect(other["GLIBC_TUNABLES"] == "glibc.pthread.rseq=0:" + LaunchTuning.mallocTunables(processors: 2))
    }

    @Test func theStartupLineSaysWhoSetWhat() {
        let launched = LaunchTuning.startupMetadata(environment: [
            "GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1048576", LaunchTuning.recordVariable: "GLIBC_TUNABLES=" + LaunchTuning.mallocTunables(processors: 2),
            "OPENSSL_ia32cap": ":~0",
        ])
        #expect(launched.map(\.key) == ["tuning.launcher", "tuning.operator.OPENSSL_ia32cap"])
        #expect(launched.first?.value == "GLIBC_TUNABLES=" + LaunchTuning.mallocTunables(processors: 2))
        #expect(LaunchTuning.startupMetadata(environment: [:]).map(\.value) == ["none"])
    }
}
