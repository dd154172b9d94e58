import ServiceProtocol

/// Every method of content-state (docs/protocol.md, "content-state methods"): the service
/// registers its handlers through these, and callers (the gateway, other services, the
/// operator CLI, tests and benchmarks) call through them.
public enum ContentState {
    public static let favoritesPut = RPCMethod<FavoritePutParams, Favorite>("content.favorites.put")
    public static let favoritesRemove = RPCMethod<ItemParams, RemovalResult>("content.favorites.remove")
    /// Not idempotent: a retry toggles again.
    public static let favoritesToggle = RPCMethod<ItemParams, FavoriteToggleResult>("content.favorites.toggle")
    public static let favoritesList = RPCMethod<FavoritesListParams, FavoritesPage>("content.favorites.list")

    public static let readMark = RPCMethod<ItemParams, ReadMark>("content.read.mark")
    public static let readUnmark = RPCMethod<ItemParams, RemovalResult>("content.read.unmark")
    public static let readList = RPCMethod<PageParams, MarksPage<ReadMark>>("content.read.list")
    public static let readBatch = RPCMethod<ReadBatchParams, ReadBatchResult>("content.read.batch")

    public static let unlikesPut = RPCMethod<ItemParams, Unlike>("content.unlikes.put")
    public static let unlikesRemove = RPCMethod<ItemParams, RemovalResult>("content.unlikes.remove")
    public static let unlikesList = RPCMethod<PageParams, MarksPage<Unlike>>("content.unlikes.list")

    public static let stateQuery = RPCMethod<StateQueryParams, StateQueryResult>("content.state.query")
    public static let stateChanges = RPCMethod<ChangesParams, ChangesPage>("content.state.changes")
    public static let userDelete = RPCMethod<UserParams, UserDeletionResult>("content.user.delete")
    /// Merges a guest's state into another user (DESIGN.md section 9.1); a repeat answers the first.
    public static let userMerge = RPCMethod<UserMergeParams, UserMergeResult>("content.user.merge")
    /// How many favorites, read marks and unlikes the user has (the admin console shows them).
    public static let userCounts = RPCMethod<UserParams, UserContentCounts>("content.user.counts")

    /// Every method's name, for a check against the registered router and the docs.
    public static let methodNames: [String] = [
        favoritesPut.name, favoritesRemove.name, favoritesToggle.name, favoritesList.name,
        readMark.name, readUnmark.name, readList.name, readBatch.name,
        unlikesPut.name, unlikesRemove.name, unlikesList.name,
        stateQuery.name, stateChanges.name, userDelete.name, userMerge.name, userCounts.name,
    ]
}
