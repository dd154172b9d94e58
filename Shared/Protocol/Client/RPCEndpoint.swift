import FoundationEssentials
import TextCoding

/// A `host:port` a client connects to. A DNS name stands for every address it resolves to.
public struct RPCEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (or `[v6]:port`).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingWhitespace()
        guard let colon = trimmed.lastIndex(of: ":"),
            let port = Int(trimmed[trimmed.index(after: colon)...]), (1...65535).contains(port)
        else {
            throw RPCEndpointError.invalid(trimmed)
        }
        var host = String(trimmed[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        guard !host.isEmpty else { throw RPCEndpointError.invalid(trimmed) }
        self.init(host: host, port: port)
    }

    /// Parses a comma-separated list such as `tokens:7002,10.0.0.5:7002`.
    public static func parseList(_ text: String) throws -> [RPCEndpoint] {
        let endpoints = try text.split(separator: ",").map { try RPCEndpoint(parsing: String($0)) }
        guard !endpoints.isEmpty else { throw RPCEndpointError.invalid(text) }
        return endpoints
    }

    public var description: String { "\(self.host):\(self.port)" }
}

/// A malformed endpoint list.
public enum RPCEndpointError: Error, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let text): "expected a comma list of host:port, got '\(text)'"
        }
    }
}
