import TokensAPI
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder of PEM keys every replica shares (a mounted secret): reads every key in it and
/// writes new ones with mode 0600.
public struct SigningKeyFolder: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// Refuses a folder another user could write to: every key in it is published and the
    /// newest signs, so a planted key would sign tokens. It must be owned by this process's user
    /// (or by root, as a mounted secret is, which no other user can write anyway) and not be
    /// writable by group or others.
    public func checkPrivate() throws {
        var info = stat()
        guard stat(self.url.path, &info) == 0 else { return }
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
            let attributes = try manager.attributesOfItem(atPath: path)
            guard let data = manager.contents(atPath: path),
                let material = try? SigningKey.Material(pem: String(decoding: data, as: UTF8.self))
            else { throw SigningKeyError.unreadableFile(name) }
            let modified = attributes[.modificationDate] as? Date ?? .distantPast
            keys.append(SigningKey(material: material, createdAt: modified, fileName: name))
        }
        return keys.sorted { ($0.createdAt, $0.fileName) < ($1.createdAt, $1.fileName) }
    }

    /// Generates a key of `algorithm` and writes it (mode 0600, written under a temporary name
    /// then renamed, so a replica reading the folder never sees half a key).
    @discardableResult
    public func generate(_ algorithm: SigningAlgorithm, now: Date = Date()) throws -> SigningKey {
        try FileManager.default.createDirectory(
            at: self.url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try self.checkPrivate()
        let material = try SigningKey.generateMaterial(algorithm)
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
}
