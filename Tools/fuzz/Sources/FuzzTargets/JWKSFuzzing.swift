import Foundation
import IdentityService

/// A provider's JWKS reply as identity's key cache reads it: the first line of the input is the
/// `Cache-Control` header (none without a line break), the rest the JWKS document.
/// Properties: nothing traps; `max-age` is a whole number of seconds, 0 with `no-cache` or
/// `no-store`, the last `max-age` counting, and `max-age=N` written out reads as N; a document
/// Foundation does not read is no key set; every key the cache takes is an RSA key of the
/// document (as Foundation reads it), under its own `kid`, pinned to RS256.
enum JWKSFuzzing {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
        let header = newline.map { String(decoding: bytes[..<$0], as: UTF8.self) }
        let document = Data(bytes[(newline.map { $0 + 1 } ?? 0)...])
        Self.checkCacheControl(header)
        Self.checkKeys(document)
    }

    static func checkCacheControl(_ header: String?) {
        guard let header else {
            FuzzCheck.require(IdentityFuzzing.maxAge(cacheControl: nil) == nil, "a lifetime without a header")
            return
        }
        let maxAge = IdentityFuzzing.maxAge(cacheControl: header)
        if let maxAge {
            FuzzCheck.require(maxAge >= 0 && maxAge.rounded() == maxAge, "max-age \(maxAge) from \(header.debugDescription)")
        }
        let directives = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        // A directive's name precedes its `=` (a leading `=` is dropped: `=no-cache` is `no-cache`).
        let names = directives.map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
        let forbidsCaching = names.contains { $0 == "no-cache" || $0 == "no-store" }
        if forbidsCaching {
            FuzzCheck.require(maxAge == 0, "\(header.debugDescription) keeps keys for \(String(describing: maxAge))")
            return
        }
        // The last max-age counts, and one written out reads as itself.
        let seconds = header.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFFFF }
        let appended = IdentityFuzzing.maxAge(cacheControl: header + ", max-age=\(seconds)")
        FuzzCheck.require(appended == TimeInterval(seconds), "\(header.debugDescription), max-age=\(seconds) reads as \(String(describing: appended))")
        FuzzCheck.require(IdentityFuzzing.maxAge(cacheControl: "max-age=\(seconds)") == TimeInterval(seconds), "max-age=\(seconds)")
    }

    static func checkKeys(_ document: Data) {
        let keys = Blocking.run { await IdentityFuzzing.keys(inJWKS: document) }
        guard let keys else { return }
        // Keys from a document the reference does not read (`FoundationJSON`) are not compared.
        guard let object = FoundationJSON.object(document) else { return }
        guard let entries = object["keys"] as? [[String: Any]] else {
            FuzzCheck.require(false, "a key set from a document that is no JWKS: \(String(decoding: document, as: UTF8.self))")
            return
        }
        for (kid, algorithm) in keys {
            FuzzCheck.require(algorithm == "RS256", "\(kid) pinned to \(algorithm)")
            let entry = entries.first { $0["kid"] as? String == kid && $0["kty"] as? String == "RSA" && ($0["alg"] == nil || $0["alg"] as? String == "RS256") }
            FuzzCheck.require(entry != nil, "key \(kid) is no RS256 key of the document: \(String(decoding: document, as: UTF8.self))")
        }
    }
}
