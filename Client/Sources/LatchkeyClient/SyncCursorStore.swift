import Foundation

/// Where ``ContentSync`` left off: the changes feed's cursor and the items the app has been
/// told about, for one user.
public struct SyncCheckpoint: Codable, Hashable, Sendable {
    /// The user the checkpoint belongs to; another user's sync starts from the beginning.
    public var userID: String
    /// The last `next_cursor` whose changes the app applied.
    public var cursor: String?
    /// Items the app holds state for: a change of one of these is an update, of another an insert.
    public var knownItemIDs: Set<String>

    public init(userID: String, cursor: String? = nil, knownItemIDs: Set<String> = []) {
        self.userID = userID
        self.cursor = cursor
        self.knownItemIDs = knownItemIDs
    }
}

/// Where ``ContentSync`` keeps its ``SyncCheckpoint`` between launches.
public protocol SyncCursorStore: Sendable {
    /// The stored checkpoint, or nil when there is none.
    func load() async throws -> SyncCheckpoint?
    /// Replaces whatever is stored.
    func save(_ checkpoint: SyncCheckpoint) async throws
    /// Removes the stored checkpoint; no error when there was none.
    func clear() async throws
}

/// A ``SyncCursorStore`` that forgets everything when the process ends.
public typealias InMemorySyncCursorStore = InMemoryStore<SyncCheckpoint>

/// A ``SyncCursorStore`` in one JSON file (mode 0600, replaced atomically), e.g. in the app's
/// Application Support folder.
public typealias FileSyncCursorStore = FileStore<SyncCheckpoint>

extension InMemoryStore: SyncCursorStore where Value == SyncCheckpoint {}
extension FileStore: SyncCursorStore where Value == SyncCheckpoint {}
