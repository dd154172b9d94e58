import Testing

@testable import ServiceKit

/// `FileMappings`: which mappings of `/proc/self/smaps` are released (only the clean pages of
/// private, read-only file mappings), and a release in this very process, which goes on running.
@Suite struct FileMappingsTests {
    private static let sample = """
        55d0c0000000-55d0c0200000 r--p 00000000 fe:01 1234                       /usr/bin/service
        Size:               2048 kB
        Rss:                 512 kB
        Pss:                 128 kB
        Anonymous:             0 kB
        55d0c0200000-55d0c0a00000 r-xp 00200000 fe:01 1234                       /usr/bin/service
        Size:               8192 kB
        Rss:                4096 kB
        Anonymous:             0 kB
        55d0c0a00000-55d0c0b00000 r--p 00a00000 fe:01 1234                       /usr/bin/service
        Size:               1024 kB
        Rss:                 760 kB
        Anonymous:           760 kB
        55d0c0b00000-55d0c0b40000 rw-p 00b00000 fe:01 1234                       /usr/bin/service
        Rss:                 228 kB
        Anonymous:           200 kB
        55d0c1000000-55d0c1100000 rw-p 00000000 00:00 0                          [heap]
        Rss:                 688 kB
        Anonymous:           688 kB
        7f0000000000-7f0000100000 r--s 00000000 fe:01 99                         /dev/shm/shared file
        Rss:                  64 kB
        Anonymous:             0 kB
        7f0000200000-7f0000300000 r-xp 00000000 fe:01 77                         /usr/lib/libunused.so
        Rss:                   0 kB
        Anonymous:             0 kB
        7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
        Rss:                   8 kB
        Anonymous:             0 kB
        7f0000400000-7f0000500000 r-xp 00000000 fe:01 78                         /usr/lib/libcut.so
        Rss:                 128 kB
        """

    @Test func readsEachMappingAndItsSizes() throws {
        let mappings = FileMappings.parse(Self.sample)
        #expect(mappings.count == 9)
        let code = try #require(mappings.first { $0.permissions == "r-xp" })
        #expect(code.start == 0x55d0_c020_0000 && code.end == 0x55d0_c0a0_0000)
        #expect(code.path == "/usr/bin/service")
        #expect(code.residentBytes == 4096 * 1024 && code.anonymousBytes == 0)
        // A path with a space is read whole.
        #expect(mappings.contains { $0.path == "/dev/shm/shared file" })
        #expect(mappings.contains { $0.path == "[heap]" })
    }

    @Test func onlyCleanPrivateReadOnlyFileMappingsAreReleased() {
        let released = FileMappings.parse(Self.sample).filter(\.isReleasable).map { "\($0.permissions) \($0.path)" }
        // Not the relocated tables (written), not .data or the heap (writable), not a shared mapping,
        // not what holds nothing, not the kernel's [vdso], not a mapping whose lines were cut off
        // before its Anonymous line.
        #expect(released == ["r--p /usr/bin/service", "r-xp /usr/bin/service"])
    }

    @Test func releasingThisProcessesPagesKeepsItRunning() throws {
        let before = Self.residentReleasableBytes()
        #expect(before > 0)
        let released = FileMappings.releaseCleanPages()
        #expect(released > 0)
        // Code runs again from the page cache (this very test is running it).
        let after = Self.residentReleasableBytes()
        #expect(after < before)
        var sum = 0
        for value in 0..<10_000 { sum &+= value }
        #expect(sum == 49_995_000)
    }

    private static func residentReleasableBytes() -> Int {
        FileMappings.current().filter(\.isReleasable).reduce(0) { $0 + ($1.residentBytes ?? 0) }
    }
}
