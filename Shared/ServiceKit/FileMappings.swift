#if canImport(Glibc)
import Glibc
#endif
import ServiceLaunch

/// The process's mappings of files (its executable and shared libraries), as
/// `/proc/self/smaps` lists them, and the release of their clean pages.
///
/// A process maps a page of code or read-only data when it first runs or reads it, and the
/// kernel maps up to 64 kB of cached file around each such page. Starting a service (reading
/// the configuration, connecting, migrating, binding, the first of every lazy initialisation)
/// runs code that serving never runs again: with these pages released, the four services' PSS at
/// rest went 43 → 28 MiB on a held stack, and their peak in the benchmark's scenarios 48 → 44 MiB
/// (docs/benchmarks.md). `releaseCleanPages()` drops this process's mapping of
/// every clean page of a private, read-only file mapping (`madvise(MADV_DONTNEED)`): the file
/// stays in the page cache, and a page the process touches again is mapped again by a minor
/// fault. Mappings that hold a page the process wrote (the relocated tables, `.data`) are left
/// alone: releasing those would bring back the file's bytes.
public enum FileMappings {
    /// One mapping: its addresses and what the process holds of it.
    public struct Mapping: Equatable, Sendable {
        public var start: UInt
        public var end: UInt
        /// `r-xp`, `r--p`, `rw-p`, `r--s`...
        public var permissions: String
        /// The file's path; empty for anonymous memory, `[heap]`, `[stack]`, `[vdso]`...
        public var path: String
        /// Resident bytes, and the bytes of pages the process has written (copies of its own);
        /// nil until their lines are read.
        public var residentBytes: Int? = nil
        public var anonymousBytes: Int? = nil

        /// A private mapping of a file, never writable, nothing of it written: every resident page is
        /// the file's own, so dropping it loses nothing the file does not hold.
        public var isReleasable: Bool {
            let flags = Array(self.permissions.utf8)
            return flags.count == 4 && flags[1] != UInt8(ascii: "w") && flags[3] == UInt8(ascii: "p")
                && self.path.utf8.first == UInt8(ascii: "/") && self.anonymousBytes == 0 && (self.residentBytes ?? 0) > 0
        }
    }

    /// The mappings of `/proc/self/smaps`'s text: a line `start-end perms offset dev inode [path]`
    /// for each, followed by its `Key: value kB` lines.
    public static func parse(_ smaps: String) -> [Mapping] {
        var mappings: [Mapping] = []
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.hasSuffix(":") {
                guard !mappings.isEmpty, fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
                switch first {
                case "Rss:": mappings[mappings.count - 1].residentBytes = kilobytes * 1024
                case "Anonymous:": mappings[mappings.count - 1].anonymousBytes = kilobytes * 1024
                default: break
                }
                continue
            }
            let bounds = first.split(separator: "-")
            guard fields.count >= 5, bounds.count == 2, let start = UInt(bounds[0], radix: 16),
                let end = UInt(bounds[1], radix: 16)
            else { continue }
            let path = fields.count == 6 ? String(fields[5].drop(while: { $0 == " " })) : ""
            mappings.append(Mapping(start: start, end: end, permissions: String(fields[1]), path: path))
        }
        return mappings
    }

    /// Drops this process's mapping of the clean pages of its read-only file mappings. Returns the
    /// resident bytes of the mappings released (0 where `/proc/self/smaps` cannot be read).
    @discardableResult
    public static func releaseCleanPages() -> Int {
        #if os(Linux)
        var released = 0
        for mapping in Self.current() where mapping.isReleasable {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                released += mapping.residentBytes ?? 0
            }
        }
        return released
        #else
        return 0
        #endif
    }

    /// This process's mappings now (none where `/proc/self/smaps` cannot be read; of a text cut off
    /// by the limit, a mapping cut before its `Anonymous` line is not released).
    static func current() -> [Mapping] {
        #if os(Linux)
        return TextFile.contents(of: "/proc/self/smaps", limit: 16 << 20).map(Self.parse) ?? []
        #else
        return []
        #endif
    }
}
