import CLibPQ

/// The server's type of a result column, by OID (see `pg_type`).
public struct PostgresDataType: Sendable, Hashable {
    public let oid: UInt32

    public init(oid: UInt32) { self.oid = oid }

    public static let bool = PostgresDataType(oid: 16)
    public static let bytea = PostgresDataType(oid: 17)
    public static let int8 = PostgresDataType(oid: 20)
    public static let int2 = PostgresDataType(oid: 21)
    public static let int4 = PostgresDataType(oid: 23)
    public static let text = PostgresDataType(oid: 25)
    public static let float4 = PostgresDataType(oid: 700)
    public static let float8 = PostgresDataType(oid: 701)
    public static let varchar = PostgresDataType(oid: 1043)
    public static let date = PostgresDataType(oid: 1082)
    public static let timestamp = PostgresDataType(oid: 1114)
    public static let timestamptz = PostgresDataType(oid: 1184)
    public static let numeric = PostgresDataType(oid: 1700)
    public static let uuid = PostgresDataType(oid: 2950)
    public static let name = PostgresDataType(oid: 19)
    public static let bpchar = PostgresDataType(oid: 1042)

    /// Whether the type's values are text (`text`, `varchar`, `char`, `name`): in binary form,
    /// their UTF-8 bytes.
    @inlinable
    public var isText: Bool {
        self == .text || self == .varchar || self == .bpchar || self == .name
    }
}
