import CLibPQ

/// The statements prepared on one server connection, named by SQL text and parameter types.
///
/// A statement is parsed and planned by the server once per connection (`PQprepare`) and then
/// only bound and run (`PQexecPrepared`), instead of being planned anew on every call. The
/// server forgets its prepared statements when the connection closes, so the cache belongs to
/// one `PGconn` and is emptied whenever that connection is reset.
struct PreparedStatementCache {
    /// SQL text and the parameter type OIDs it was prepared with: the same text bound once
    /// with NULL (untyped) and once with bytea must be two statements.
    struct Key: Hashable, Sendable {
        var sql: String
        var types: [Oid]
    }

    /// At most this many statements per connection; past it statements run unprepared, so SQL
    /// text built at run time cannot grow a connection's memory without bound.
    static let capacity = 256

    private var names: [Key: String] = [:]
    /// Never reused on one connection, so a statement forgotten after an error cannot clash.
    private var nextNumber = 1

    func name(for key: Key) -> String? { names[key] }

    var isFull: Bool { names.count >= Self.capacity }

    /// A fresh name for `key`; it is remembered only once `add` confirms the server prepared it.
    mutating func newName() -> String {
        defer { nextNumber += 1 }
        return "latchkey_\(nextNumber)"
    }

    mutating func add(_ key: Key, name: String) { names[key] = name }

    mutating func remove(_ key: Key) { names[key] = nil }

    /// Called when the connection is reset: the server side of every statement is gone.
    mutating func removeAll() { names.removeAll() }
}
