import Foundation

/// One value kept in memory: ``InMemoryTokenStore`` and ``InMemorySyncCursorStore``.
public actor InMemoryStore<Value: Sendable> {
    private var value: Value?
    private let lock = AsyncLock()

    /// A store holding `value` (nothing when nil).
    public init(_ value: Value? = nil) {
        self.value = value
    }

    public func load() -> Value? { self.value }
    public func save(_ value: Value) { self.value = value }
    public func clear() { self.value = nil }

    /// Runs `body` while no other caller of this store runs its own.
    public nonisolated func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await self.lock.withLock(body)
    }
}

/// One value kept as JSON in a file only its owner can read (0600), replaced atomically on
/// every save: ``FileTokenStore`` and ``FileSyncCursorStore``.
public actor FileStore<Value: Codable & Sendable> {
    /// The file. Its folder is created (0700) on the first save when missing.
    public nonisolated let file: URL
    private let lock = AsyncLock()

    public init(file: URL) {
        self.file = file
    }

    /// The lock file beside the store's, which processes sharing the store take turns on.
    public nonisolated var lockFile: URL {
        self.file.deletingLastPathComponent().appendingPathComponent(self.file.lastPathComponent + ".lock")
    }

    public func load() throws -> Value? {
        guard let data = try PrivateFile.read(self.file) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    public func save(_ value: Value) throws {
        try PrivateFile.write(try JSONEncoder().encode(value), to: self.file)
    }

    public func clear() throws {
        try PrivateFile.remove(self.file)
    }

    /// Runs `body` while no other caller of this file runs its own: the callers in this process
    /// in turn, and across processes through an exclusive `flock` on ``lockFile``.
    public nonisolated func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let lockFile = self.lockFile
        return try await self.lock.withLock {
            try PrivateFile.createFolder(of: lockFile)
            return try await FileLock.withLock(lockFile, body)
        }
    }
}
