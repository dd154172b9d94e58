import Foundation

/// Which `Content-Type` a request body must declare: `application/json` or any `…+json` type
/// (parameters such as `charset` ignored). A body in another type is 415, so that a form or
/// text body is never read as JSON by accident.
enum JSONMediaType {
    static func matches(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let type = essence.trimmingCharacters(in: .whitespaces).lowercased()
        guard let slash = type.firstIndex(of: "/"), slash != type.startIndex else { return false }
        let subtype = type[type.index(after: slash)...]
        return type == "application/json" || (subtype.hasSuffix("+json") && subtype.count > 5)
    }
}
