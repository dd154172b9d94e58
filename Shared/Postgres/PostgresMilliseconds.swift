import TextCoding

/// A `timestamptz` (or `timestamp`) cell read as whole milliseconds since 1970-01-01 UTC,
/// rounded to the nearest (a half up): the time a reader of a binary result
/// (`PostgresResultFormat.binary`) gets without the server computing anything. The binary form
/// is the server's own representation, a `bigint` of microseconds since 2000-01-01, so a row's
/// times cost one division each here where `(date_part('epoch', t) * 1000)::bigint` in the
/// statement cost the server a floating-point conversion and a parse of `'epoch'` for every
/// cell. Rounded, not floored: a time written as whole milliseconds through `float8`
/// (`to_timestamp`) can be stored a microsecond below them far from 2000.
///
/// Only the binary form is read: the text form depends on the session's `DateStyle` and
/// `TimeZone` (read text results as `Date`). `infinity` and `-infinity` are not a time and
/// read as a decoding error.
public struct PostgresMilliseconds: PostgresDecodable, Hashable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var value: Int64

    public init(_ value: Int64) {
        self.value = value
    }

    /// Milliseconds from 1970-01-01 to 2000-01-01, the server's epoch.
    @usableFromInline
    static let serverEpoch: Int64 = 946_684_800_000

    public static func decode(postgresText text: String, type: PostgresDataType) -> PostgresMilliseconds? { nil }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> PostgresMilliseconds? {
        guard type == .timestamptz || type == .timestamp, bytes.count == 8 else { return nil }
        let microseconds = Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        guard microseconds != .max, microseconds != .min else { return nil }
        // A half up, then rounded down (a time before 2000 is a negative count): the same
        // millisecond counted from 1970, the epochs being whole milliseconds apart.
        let (shifted, overflow) = microseconds.addingReportingOverflow(500)
        guard !overflow else { return nil }
        let milliseconds = shifted.dividedRoundingDown(by: 1000).quotient
        return PostgresMilliseconds(milliseconds + Self.serverEpoch)
    }
}
