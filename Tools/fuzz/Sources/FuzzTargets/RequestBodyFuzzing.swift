import Foundation
import Gateway
import NIOCore

/// A client's JSON body as the gateway reads it before forwarding members to a backend.
/// Properties: nothing traps; a refusal is 400 `bad_request` (never a 5xx); what it accepts
/// is a JSON object that Foundation reads, and reading the forwarded params again gives the
/// same params (nothing is lost or changed in the second reading a backend does).
enum RequestBodyFuzzing {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        switch GatewayFuzzing.readBody(ByteBuffer(bytes: bytes)) {
        case .failure(let refusal):
            FuzzCheck.require(refusal.status == 400 && refusal.code == "bad_request", "refused with \(refusal)")
        case .success(let params):
            let forwarded = try? JSONSerialization.jsonObject(with: params) as? NSDictionary
            FuzzCheck.require(forwarded != nil, "forwarded params that are not a JSON object")
            guard case .success(let again) = GatewayFuzzing.readBody(ByteBuffer(data: params)) else {
                FuzzCheck.require(false, "the forwarded params are refused when read again")
                return
            }
            let reread = try? JSONSerialization.jsonObject(with: again) as? NSDictionary
            FuzzCheck.require(reread.map { forwarded?.isEqual($0) ?? false } ?? false, "reading the forwarded params again changes them")
        }
    }
}
