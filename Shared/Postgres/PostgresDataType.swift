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
}
