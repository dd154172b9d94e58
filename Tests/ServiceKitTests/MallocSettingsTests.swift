import CGlibcExtras
import Testing

@testable import ServiceKit

@Suite struct MallocSettingsTests {
    /// After `apply`, a block of 256 KiB comes from the heap (glibc's default would have
    /// mapped it on its own, and every use of it would start with page faults); a block above
    /// the threshold is still mapped. A mapped block's usable size is its request rounded up to
    /// whole pages, less its 16-byte header; a heap block's is within a few words of its request.
    @Test func blocksBelowTheMmapThresholdComeFromTheHeap() throws {
        #expect(MallocSettings.apply(EnvironmentReader([:])))
        func isMapped(_ size: Int) throws -> Bool {
            let block = try #require(malloc(size))
            defer { free(block) }
            return malloc_usable_size(block) >= size + 4096 - 16
        }
        #expect(try !isMapped(Int(MallocSettings.mmapThreshold) / 2))
        #expect(try isMapped(Int(MallocSettings.mmapThreshold) * 2))
    }

    @Test func anOperatorsMallocTunablesAreLeftAlone() {
        #expect(!MallocSettings.apply(EnvironmentReader(["GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"])))
        #expect(MallocSettings.apply(EnvironmentReader(["GLIBC_TUNABLES": "glibc.pthread.rseq=0"])))
    }
}
