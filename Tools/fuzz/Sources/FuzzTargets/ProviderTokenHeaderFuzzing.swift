import CompactJSON
import Foundation
import IdentityService
import JWTKit
import TextCoding

/// A provider token's header as identity reads it before it picks a key: `JWSHeader` in place
/// (the plain spelling), else JWTKit's parser. An input that starts with `{` is a header, made
/// into a token here (`HEADER.e30.c2ln`); any other input is a token as it is.
/// Properties: nothing traps; the verifier's reading is the in-place one whenever there is one;
/// a header the in-place reader accepts, Foundation reads as an object with the same `kid` and
/// `alg` strings; and JWTKit's own parser over Foundation's decoder (the reference) reads the
/// same `kid` and `alg` from any token that both it and the verifier read.
enum ProviderTokenHeaderFuzzing {
    static let reference = DefaultJWTParser()

    /// Any payload: only the header is compared.
    struct AnyPayload: JWTPayload {
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws {}
        func verify(using _: some JWTAlgorithm) throws {}
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let token = bytes.first == UInt8(ascii: "{") ? Base64URL.encode(bytes) + ".e30.c2ln" : String(decoding: bytes, as: UTF8.self)
        let plain = JWSHeader(plainHeaderOf: token)
        let verifiers = IdentityFuzzing.header(of: token)
        if let plain {
            FuzzCheck.require(verifiers == plain, "the verifier reads \(String(describing: verifiers)), the in-place reader \(plain)")
            Self.expectFoundationReads(plain, in: token)
        }
        guard let verifiers else { return }
        guard let parsed = try? Self.reference.parse(Array(token.utf8), as: AnyPayload.self) else {
            // Only the in-place reader reads a header without the rest of the token.
            FuzzCheck.require(plain != nil, "the verifier read a header from a token JWTKit refuses: \(token)")
            return
        }
        FuzzCheck.require(
            parsed.header.kid == verifiers.kid && parsed.header.alg == verifiers.alg,
            "kid/alg \(String(describing: verifiers.kid))/\(String(describing: verifiers.alg)), JWTKit reads \(String(describing: parsed.header.kid))/\(String(describing: parsed.header.alg))"
        )
    }

    /// Whether `json` writes a number with an exponent or with more than 17 digits: the
    /// numbers JSONDecoder may refuse as out of range.
    static func holdsANumberFoundationRefuses(_ json: [UInt8]) -> Bool {
        var digits = 0
        var previousIsDigit = false
        for byte in json {
            let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            if isDigit { digits += 1 } else if byte != UInt8(ascii: ".") { digits = 0 }
            if digits > 17 || (previousIsDigit && (byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E"))) { return true }
            previousIsDigit = isDigit
        }
        return false
    }

    /// The first segment of `token`, read by Foundation, is an object whose `kid` and `alg` are
    /// `header`'s (absent where it has none).
    static func expectFoundationReads(_ header: JWSHeader, in token: String) {
        let segment = String(decoding: token.utf8.prefix { $0 != UInt8(ascii: ".") }, as: UTF8.self)
        guard let json = Base64URL.decode(segment) else {
            FuzzCheck.require(false, "the in-place reader read a header that is not base64url: \(segment)")
            return
        }
        guard let object = FoundationJSON.object(json) else {
            // Foundation refuses numbers it cannot hold (a huge exponent, more digits than a
            // Double keeps) that the in-place reader steps over in a member it does not read;
            // JWTKit's verification, which decodes with Foundation, then refuses the token.
            FuzzCheck.require(Self.holdsANumberFoundationRefuses(json), "the in-place reader read a header Foundation refuses: \(segment)")
            return
        }
        FuzzCheck.require(object["kid"] as? String == header.kid && (object["kid"] == nil) == (header.kid == nil), "kid \(String(describing: header.kid)), Foundation \(String(describing: object["kid"]))")
        FuzzCheck.require(object["alg"] as? String == header.alg && (object["alg"] == nil) == (header.alg == nil), "alg \(String(describing: header.alg)), Foundation \(String(describing: object["alg"]))")
    }
}
