/// How the server writes a statement's result cells: as text (the default), or in each type's
/// binary form. A binary `bigint` is its eight bytes, where text is its digits, which the
/// server formats (`int8out`) and the service parses again: on a page of 100 changes, text
/// output was a tenth of Postgres's time. Binary results can be read as `String` (from
/// `text`, `varchar`, `char` and `name`), the integer types (from `smallint`, `integer` and
/// `bigint`) and `Bool` (`PostgresDecodable.decode(postgresBinary:type:)`); a statement whose
/// result holds any other type should ask for text.
public enum PostgresResultFormat: Int32, Sendable {
    case text = 0
    case binary = 1
}
