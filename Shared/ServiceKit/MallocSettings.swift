#if canImport(Glibc)
import CGlibcExtras
#endif

/// How glibc's allocator keeps freed memory in every executable.
///
/// By default glibc gives the top of a thread's heap back to the kernel once more than 128 KiB
/// is free there, and serves blocks of 128 KiB or more with `mmap` until the first such block is
/// freed. A service's threads allocate and free a page of rows or a response of a few to some
/// hundreds of KiB per request, so the heap grew and shrank under load and every page touched
/// again was a page fault: content-state took 1.7–2.9 faults a changes page (about a tenth of its
/// CPU) and 0.8 a favorites page. With freed memory kept up to `trimThreshold` at a heap's top and
/// blocks below `mmapThreshold` taken from the heap, the faults stop (docs/benchmarks.md). An
/// operator's own `GLIBC_TUNABLES` malloc settings take precedence: then nothing is changed.
public enum MallocSettings {
    public static let trimThreshold: Int32 = 1 << 20
    public static let mmapThreshold: Int32 = 512 << 10

    /// Applies the thresholds unless `GLIBC_TUNABLES` names a `glibc.malloc` setting. Returns
    /// whether it did.
    @discardableResult
    public static func apply(_ env: EnvironmentReader) -> Bool {
        #if canImport(Glibc)
        if let tunables = env.optional("GLIBC_TUNABLES"), tunables.contains("glibc.malloc.") { return false }
        // Each returns 1 on success; the values are within glibc's ranges (mmap at most 32 MiB).
        let trim = mallopt(M_TRIM_THRESHOLD, trimThreshold)
        let mmap = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        return trim == 1 && mmap == 1
        #else
        return false
        #endif
    }
}
