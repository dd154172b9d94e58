import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file only its owner can read or write (0600), replaced atomically: the data goes to a
/// new file created 0600 beside it, is flushed, and is renamed over the old one.
enum PrivateFile {
    /// The file's contents, or nil when it does not exist.
    static func read(_ file: URL) throws -> Data? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try Data(contentsOf: file)
    }

    /// Creates the file's folder (0700, with its parents) when it does not exist.
    static func createFolder(of file: URL) throws {
        let folder = file.deletingLastPathComponent()
        guard !FileManager.default.fileExists(atPath: folder.path) else { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    static func write(_ data: Data, to file: URL) throws {
        let temporary = try Self.temporaryCopy(of: data, beside: file)
        guard rename(temporary.path, file.path) == 0 else {
            let failure = errno
            unlink(temporary.path)
            throw Self.posixError(failure)
        }
    }

    /// Writes `data` to `file` only when there is no such file, atomically (a hard link of a
    /// complete copy, which fails when the name is taken): of two processes creating it at
    /// once, one wins and both then read the same. False when the file was there.
    static func create(_ data: Data, at file: URL) throws -> Bool {
        let temporary = try Self.temporaryCopy(of: data, beside: file)
        defer { unlink(temporary.path) }
        guard link(temporary.path, file.path) == 0 else {
            if errno == EEXIST { return false }
            throw Self.posixError(errno)
        }
        return true
    }

    /// A new 0600 file beside `file` holding `data`, flushed.
    private static func temporaryCopy(of data: Data, beside file: URL) throws -> URL {
        try Self.createFolder(of: file)
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw Self.posixError(errno) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary.path)
            throw error
        }
        return temporary
    }

    static func remove(_ file: URL) throws {
        guard unlink(file.path) == 0 || errno == ENOENT else { throw Self.posixError(errno) }
    }

    private static func posixError(_ code: Int32) -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }
}
