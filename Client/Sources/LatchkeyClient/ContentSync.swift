import Foundation

/// What changed since the last sync, sorted for the app's local copy.
public struct SyncBatch: Sendable, Hashable {
    /// Items the app did not hold state for and now has some.
    public var inserted: [ItemChange]
    /// Items the app holds whose state changed (still some flag set).
    public var updated: [ItemChange]
    /// Items the app holds on which the user has no state left (unfavorited, unread, not unliked).
    public var removed: [ItemChange]

    public var isEmpty: Bool { self.inserted.isEmpty && self.updated.isEmpty && self.removed.isEmpty }

    public init(inserted: [ItemChange] = [], updated: [ItemChange] = [], removed: [ItemChange] = []) {
        self.inserted = inserted
        self.updated = updated
        self.removed = removed
    }
}

/// Keeps a device's copy of the user's content state in step with the gateway: each
/// ``sync(_:)`` pulls `GET /api/v1/state/changes` from the stored cursor and hands the app
/// inserts, updates and removals, a page at a time.
///
/// Delivery is at least once: the checkpoint is saved after the app's handler returns (and,
/// on a long first sync, every so often rather than after every page), so a crash in between
/// hands the same changes again. Apply changes by item id (upsert, delete) and a repeat does
/// no harm. Syncs of one `ContentSync` run one at a time: a second call waits for the first.
/// A cursor the gateway refuses (a 400, e.g. after a server-side reset) is dropped and the sync
/// starts over from the beginning by itself.
public actor ContentSync {
    /// The client whose user's state is synced.
    public let client: LatchkeyClient
    /// Where the checkpoint is kept between syncs and launches.
    public let store: any SyncCursorStore
    /// Changes per page (the gateway's default when nil).
    public let pageSize: Int?
    private let turn = AsyncLock()

    /// A sync of `client`'s user, from the checkpoint in `store` (an in-memory one starts over
    /// at every launch: give it a ``FileSyncCursorStore`` in an app).
    public init(client: LatchkeyClient, store: any SyncCursorStore = InMemorySyncCursorStore(), pageSize: Int? = nil) {
        self.client = client
        self.store = store
        self.pageSize = pageSize
    }

    /// Pulls every change since the last sync. `apply` is called once per page that changed
    /// anything the app should know; the checkpoint moves past a page only after `apply`
    /// returns. Returns every change handed over, in one batch. Stops with `CancellationError`
    /// between pages when its task is cancelled.
    @discardableResult
    public func sync(_ apply: @escaping @Sendable (SyncBatch) async throws -> Void) async throws -> SyncBatch {
        try await self.turn.withLock { try await self.pull(apply) }
    }

    private func pull(_ apply: @Sendable (SyncBatch) async throws -> Void) async throws -> SyncBatch {
        guard case .signedIn(let user) = try await self.client.authState() else { throw LatchkeyError.notSignedIn }
        var checkpoint = try await self.store.load() ?? SyncCheckpoint(userID: user.id)
        if checkpoint.userID != user.id { checkpoint = SyncCheckpoint(userID: user.id) }

        var total = SyncBatch()
        // Saving writes every known id: save when the changes since the last save at least
        // match their number (and at the end), so a first sync of n items does O(n) work.
        var changesSinceSave = 0
        var startedOver = false
        while true {
            try Task.checkCancellation()
            let page: ChangesPage
            do {
                page = try await self.client.changes(since: checkpoint.cursor, limit: self.pageSize)
            } catch LatchkeyError.badRequest where checkpoint.cursor != nil && !startedOver {
                // The cursor is refused: from the start, keeping what the app knows, so that
                // what it already holds comes as updates and what was removed meanwhile as removals.
                checkpoint.cursor = nil
                startedOver = true
                continue
            }
            let batch = Self.sort(page.changes, known: &checkpoint.knownItemIDs)
            if !batch.isEmpty { try await apply(batch) }
            checkpoint.cursor = page.nextCursor
            changesSinceSave += page.changes.count
            if !page.hasMore || changesSinceSave >= checkpoint.knownItemIDs.count {
                try await self.store.save(checkpoint)
                changesSinceSave = 0
            }
            total.inserted += batch.inserted
            total.updated += batch.updated
            total.removed += batch.removed
            if !page.hasMore { return total }
        }
    }

    /// Forgets the checkpoint: the next sync hands over the whole state as inserts.
    public func reset() async throws {
        try await self.turn.withLock { try await self.store.clear() }
    }

    /// Sorts a page's changes by what the app knew before, and updates what it knows.
    static func sort(_ changes: [ItemChange], known: inout Set<String>) -> SyncBatch {
        var batch = SyncBatch()
        for change in changes {
            switch (known.contains(change.itemID), change.hasState) {
            case (false, true):
                batch.inserted.append(change)
                known.insert(change.itemID)
            case (true, true):
                batch.updated.append(change)
            case (true, false):
                batch.removed.append(change)
                known.remove(change.itemID)
            case (false, false):
                // Set and cleared again between two syncs: the app never saw it.
                break
            }
        }
        return batch
    }
}
