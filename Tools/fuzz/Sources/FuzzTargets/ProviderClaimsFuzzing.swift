import Foundation
import IdentityService

/// A provider token's payload as identity's decoder reads it for JWTKit (the compact decoder,
/// with Foundation's `JSONDecoder` for what it leaves): as Apple's identity-token claims,
/// Google's, and an Apple notification's. Property (differential): for each claim set, the
/// decoder accepts exactly what JWTKit's default decoder (Foundation's, times in seconds since
/// 1970) accepts, to the same claims.
enum ProviderClaimsFuzzing {
    static let reference: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let payload = Data(bytes)
        for claims in IdentityFuzzing.Claims.allCases {
            let read = IdentityFuzzing.claims(claims, in: payload)
            let expected = IdentityFuzzing.claims(claims, in: payload, reference: Self.reference)
            FuzzCheck.require(
                read == expected,
                "\(claims): identity reads \(read.map { String(decoding: $0, as: UTF8.self) } ?? "nothing"), Foundation \(expected.map { String(decoding: $0, as: UTF8.self) } ?? "nothing")"
            )
        }
    }
}
