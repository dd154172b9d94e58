import TextCoding
import TokensAPI
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The folder of PEM keys every replica shares (a mounted secret): reads every key in it and
/// writes new ones with mode 0600.
public struct SigningKeyFolder: Sendable {
    public let url: URL
    /// Whether a key file that group or others may read (or write) stops the load, naming the
    /// file: production (DESIGN.md §9.6), where only the service may read a signing key.
    public var requirePrivateFiles: Bool

    public init(url: URL, requirePrivateFiles: Bool = false) {
        self.url = url
        self.requirePrivateFiles = requirePrivateFiles
    }

    /// Refuses a key file group or others may read or write (its target, for a symbolic link as
    /// in a Kubernetes Secret volume): a copy of the key signs tokens for anyone.
    func checkPrivate(file path: String) throws {
        var info = stat()
        guard self.requirePrivateFiles, stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        throw SigningKeyError.readableKeyFile(path, String(info.st_mode & 0o7777, radix: 8))
    }

    /// Refuses a folder another user could write to: every key in it is published and the
    /// newest signs, so a planted key would sign tokens. It must be owned by this process's user
    /// (or by root, as a mounted secret is, which no other user can write anyway) and not be
    /// writable by group or others, unless it is on a read-only mount, which nobody can write
    /// (a Kubernetes Secret volume: its folder has mode 1777 but is mounted read-only).
    public func checkPrivate() throws {
        var info = stat()
        guard stat(self.url.path, &info) == 0 else { return }
        var mount = statvfs()
        if statvfs(self.url.path, &mount) == 0, mount.f_flag & UInt(ST_RDONLY) != 0 { return }
        let owner = info.st_uid
        guard owner == geteuid() || owner == 0 else {
            throw SigningKeyError.unsafeFolder(self.url.path, "owned by uid \(owner), not by this process's user (uid \(geteuid()))")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw SigningKeyError.unsafeFolder(
                self.url.path, "writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8)); chmod go-w)")
        }
    }

    /// Every `*.pem` in the folder, oldest first. A file that is not a supported private key
    /// fails the whole read, naming the file.
    public func load() throws -> [SigningKey] {
        let manager = FileManager.default
        guard manager.fileExists(atPath: self.url.path) else { return [] }
        try self.checkPrivate()
        let names = try manager.contentsOfDirectory(atPath: self.url.path).filter { $0.hasSuffix(".pem") && !$0.hasPrefix(".") }
        var keys: [SigningKey] = []
        for name in names {
            let path = self.url.appendingPathComponent(name).path
            try self.checkPrivate(file: path)
            let attributes = try manager.attributesOfItem(atPath: path)
            guard let data = manager.contents(atPath: path),
                let material = try? SigningKey.Material(pem: String(decoding: data, as: UTF8.self))
            else { throw SigningKeyError.unreadableFile(name) }
            let modified = attributes[.modificationDate] as? Date ?? .distantPast
            keys.append(SigningKey(material: material, createdAt: Self.creationTime(named: name, modified: modified), fileName: name))
        }
        return keys.sorted { ($0.createdAt, $0.fileName) < ($1.createdAt, $1.fileName) }
    }

    /// When a key was made: the UTC second that starts the names `tokens keygen` gives
    /// (`20261125T110459-rs256-….pem`), which survives copies and a Kubernetes Secret volume
    /// (it rewrites every file on each update), refined by the file's modification time when
    /// that falls within the same second. For other names, the modification time.
    static func creationTime(named name: String, modified: Date) -> Date {
        guard let named = Self.creationTime(named: name) else { return modified }
        return modified >= named && modified < named.addingTimeInterval(1) ? modified : named
    }

    /// The UTC second a key's name starts with, if it starts with one.
    static func creationTime(named name: String) -> Date? {
        let digits = Array(name.utf8.prefix(15))
        guard digits.count == 15, digits[8] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in digits[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = CivilDate.toDays(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(((days * 24 + hour) * 60 + minute) * 60 + second))
    }

    /// Generates a key of `algorithm` and writes it (mode 0600, written under a temporary name
    /// then renamed, so a replica reading the folder never sees half a key). The key is dated
    /// `now`, by default the time it is written: generating an RSA key can take seconds on a
    /// busy machine, and the activation delay must count from when replicas can see the key.
    @discardableResult
    public func generate(_ algorithm: SigningAlgorithm, now: Date? = nil) throws -> SigningKey {
        try self.create()
        try self.checkPrivate()
        let material = try SigningKey.generateMaterial(algorithm)
        let now = now ?? Date()
        var stamp = now.formatted(.iso8601.year().month().day().dateTimeSeparator(.standard).time(includingFractionalSeconds: false))
        stamp.removeAll { $0 == ":" || $0 == "-" }
        let probe = SigningKey(material: material, createdAt: now, fileName: "")
        let name = "\(stamp)-\(algorithm.jwsName.lowercased())-\(probe.kid.prefix(8)).pem"
        let temporary = self.url.appendingPathComponent(".\(name).tmp")
        let final = self.url.appendingPathComponent(name)
        guard FileManager.default.createFile(
            atPath: temporary.path, contents: Data(material.pemRepresentation.utf8),
            attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
        guard rename(temporary.path, final.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return SigningKey(material: material, createdAt: now, fileName: name)
    }

    /// Generates a key of `algorithm` unless the folder already holds one, holding the folder's
    /// lock: replicas starting together on an empty development folder make exactly one key.
    /// Returns the key it made, or nil when another process had made one.
    public func generateIfMissing(_ algorithm: SigningAlgorithm) throws -> SigningKey? {
        try self.withLock {
            if try self.load().contains(where: { $0.algorithm == algorithm }) { return nil }
            return try self.generate(algorithm)
        }
    }

    /// Runs `body` holding an exclusive `flock` on the folder's `.lock` file (waiting for it):
    /// replicas starting on the same development folder take turns. (`tokens keygen` takes no
    /// lock: it always adds a key, written under a temporary name and renamed.)
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try self.create()
        let path = self.url.appendingPathComponent(".lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SigningKeyError.unwritableFolder(self.url.path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw SigningKeyError.unwritableFolder(self.url.path, String(cString: strerror(errno))) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Creates the folder and its missing parents with mode 0700. Unlike Foundation's
    /// `createDirectory(withIntermediateDirectories:)`, a folder another process creates at the
    /// same moment is not an error (replicas starting together race here).
    func create() throws {
        var path = ""
        for component in self.url.standardizedFileURL.path.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw SigningKeyError.unwritableFolder(path, String(cString: strerror(errno)))
            }
        }
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: self.url.path, isDirectory: &isDirectory), isDirectory else {
            throw SigningKeyError.unwritableFolder(self.url.path, "not a folder")
        }
    }
}
