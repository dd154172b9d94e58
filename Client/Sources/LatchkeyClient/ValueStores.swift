import Foundation

/// One value kept in memory: ``InMemoryTokenStore`` and ``InMemorySyncCursorStore``.
public actor InMemoryStore<Value: Sendable> {
    private var value: Value?

    /// A store holding `value` (nothing when nil).
    public init(_ value: Value? = nil) {
        self.value = value
    }

    public func load() -> Value? { self.value }
    public func save(_ value: Value) { self.value = value }
    public func clear() { self.value = nil }
}

/// One value kept as JSON in a file only its owner can read (0600), replaced atomically on
/// every save: ``FileTokenStore`` and ``FileSyncCursorStore``.
public actor FileStore<Value: Codable & Sendable> {
    /// The file; its folder must exist.
    public let file: URL

    public init(file: URL) {
        self.file = file
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
}
