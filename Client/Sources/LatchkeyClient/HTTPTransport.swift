import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request as the client sends it: the transport only moves bytes.
public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header fields by name.
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: its status, its header fields (looked up without regard to case) and its body.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the header field `name`, whatever the case of its spelling.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return self.headers.first { $0.key.lowercased() == wanted }?.value
    }
}

/// What carries the client's requests to the gateway. The client uses ``URLSessionTransport``
/// unless told otherwise; tests and apps with their own networking stack supply another.
///
/// A transport throws only when no response arrived (no connection, a timeout, cancellation);
/// every HTTP status, 4xx and 5xx included, is a response.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// ``HTTPTransport`` over a `URLSession` (Foundation on Apple platforms, FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    /// The session the requests go through: `.shared`, or one with the app's own configuration.
    public let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        // A completion handler rather than `data(for:)`: the same code on every Foundation.
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            let task = self.session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }
            task.resume()
        }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}
