import Crypto
import FoundationEssentials
import TextCoding

/// The callers a backend admits and what each may call (`RPC_CALLERS`, DESIGN.md §9.5): one
/// line a caller, `name:token-hash:methods`, where `token-hash` is the lowercase hex SHA-256 of
/// the token the caller sends in `hello` (the file holds no secret) and `methods` a comma list
/// of method names or globs (`*` stands for any run of characters: `content.state.*`, or `*`
/// for everything). Blank lines and lines starting with `#` are skipped.
///
/// With a list, `hello` must name a listed caller and carry its token; every call outside the
/// caller's methods is answered `forbidden` (`hello` and `health` are always allowed). Without
/// one, `SERVICE_TOKEN` admits every caller to every method (development).
public struct RPCCallers: Sendable, Equatable {
    /// One line of the list.
    public struct Caller: Sendable, Equatable {
        public var name: String
        /// SHA-256 of the caller's token.
        public var tokenHash: [UInt8]
        public var permissions: RPCPermissions
    }

    /// A line the list cannot hold, with its number (1-based).
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public private(set) var callers: [String: Caller] = [:]

    public init(_ callers: [Caller]) {
        for caller in callers { self.callers[caller.name] = caller }
    }

    /// Reads the file's text (see the type's comment for the format).
    public init(parsing text: String) throws(ParseError) {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimming(where: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { throw ParseError(line: index + 1, reason: "expected name:token-hash:methods") }
            let name = fields[0]
            guard !name.isEmpty, name.utf8.count <= 64, name.utf8.allSatisfy(Self.isNameByte) else {
                throw ParseError(line: index + 1, reason: "a caller's name is 1 to 64 letters, digits, '.', '_' or '-'")
            }
            guard self.callers[name] == nil else { throw ParseError(line: index + 1, reason: "\(name) is listed twice") }
            guard let hash = Self.hexBytes(fields[1]), hash.count == 32 else {
                throw ParseError(line: index + 1, reason: "the token hash is 64 lowercase hex digits (SHA-256 of the token)")
            }
            let patterns = fields[2].split(separator: ",").map { $0.trimming(where: { $0 == " " || $0 == "\t" }) }.filter { !$0.isEmpty }
            guard !patterns.isEmpty else { throw ParseError(line: index + 1, reason: "\(name) may call no method") }
            self.callers[name] = Caller(name: name, tokenHash: hash, permissions: RPCPermissions(patterns))
        }
        guard !self.callers.isEmpty else { throw ParseError(line: 0, reason: "no caller is listed") }
    }

    /// The permissions of `name` when `token` is its token; nil otherwise. The hashes are
    /// compared in constant time.
    public func admit(name: String, token: String) -> RPCPermissions? {
        let presented = Array(SHA256.hash(data: Array(token.utf8)))
        guard let caller = self.callers[name], constantTimeEquals(presented, caller.tokenHash) else { return nil }
        return caller.permissions
    }

    /// The lowercase hex SHA-256 of `token`: what a caller's line holds.
    public static func tokenHash(_ token: String) -> String {
        HexDigit.lowercase(SHA256.hash(data: Array(token.utf8)))
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.lowercaseHexValue(digits[index]), let low = Self.lowercaseHexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// A hex digit's value, lowercase only (the list holds hashes as `sha256sum` prints them).
    private static func lowercaseHexValue(_ digit: UInt8) -> UInt8? {
        guard !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains(digit) else { return nil }
        return HexDigit.value(digit)
    }
}

/// The methods one caller may call: names or globs (`*` matches any run of characters).
public struct RPCPermissions: Sendable, Equatable {
    public let patterns: [String]
    /// Whether a pattern is `*`: checked on every request of every connection, so a caller
    /// allowed everything (the gateway, any caller without a list) matches no glob.
    private let allowsEverything: Bool
    /// The patterns as bytes, made once rather than on every call.
    private let globs: [[UInt8]]

    /// Every method (the caller of a server without a caller list).
    public static let everything = RPCPermissions(["*"])

    public init(_ patterns: [String]) {
        self.patterns = patterns
        self.allowsEverything = patterns.contains("*")
        self.globs = patterns.map { Array($0.utf8) }
    }

    /// Whether the caller may call `method`; `hello` and `health` are always allowed.
    public func allows(_ method: String) -> Bool {
        if self.allowsEverything || method == Hello.method || method == "health" { return true }
        let name = Array(method.utf8)
        return self.globs.contains { Self.matches($0[...], name[...]) }
    }

    /// A glob match where `*` stands for any run of characters (none included).
    static func matches(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == UInt8(ascii: "*") {
            let rest = pattern.dropFirst()
            var candidate = text
            while true {
                if Self.matches(rest, candidate) { return true }
                guard !candidate.isEmpty else { return false }
                candidate = candidate.dropFirst()
            }
        }
        guard let head = text.first, head == first else { return false }
        return Self.matches(pattern.dropFirst(), text.dropFirst())
    }
}

/// Compares two byte strings in time that depends only on their lengths.
func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
        difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0
}
