import CompactJSON
import FoundationEssentials
import JWTKit

/// The JSON decoder JWTKit reads provider tokens with: the compact decoder, times read as
/// seconds since 1970 as JWTKit's own `JSONDecoder` reads them. A document it does not read
/// (malformed, or a value it leaves alone) goes to that `JSONDecoder`, so a result, and every
/// error, is JWTKit's. With `JSONDecoder` alone, reading a token (its header three times, its
/// payload twice) was 15 % of identity's CPU in a sign-in.
struct CompactJWTJSONDecoder: JWTJSONDecoder {
    /// JWTKit's default decoder (`JWTJSONDecoder.defaultForJWT`), made once.
    private static let reference: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// A JWTKit parser that reads with this decoder.
    static let parser = DefaultJWTParser(jsonDecoder: CompactJWTJSONDecoder())

    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try CompactJSONDecoder.decode(T.self, from: data, dates: .secondsSince1970, otherwise: Self.reference)
    }
}
