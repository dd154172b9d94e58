import Foundation

/// How the client talks to the gateway: builds the request, sends it through the transport and
/// turns the answer into a value or a ``LatchkeyError``. Knows nothing of tokens but the one
/// it is handed.
struct GatewayConnection: Sendable {
    let baseURL: URL
    let transport: any HTTPTransport
    let additionalHeaders: [String: String]

    /// Percent-encodes a path segment (an item id): everything but RFC 3986's unreserved characters.
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends one request; returns the response when its status is below 400.
    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [String: JSONValue]? = nil, bearer: String? = nil
    ) async throws(LatchkeyError) -> HTTPResponse {
        let base = self.baseURL.absoluteString.hasSuffix("/") ? String(self.baseURL.absoluteString.dropLast()) : self.baseURL.absoluteString
        var text = base + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.pathSegment($0.0))=\(Self.pathSegment($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw .transport(URLError(.badURL)) }
        var request = HTTPRequest(method: method, url: url, headers: self.additionalHeaders)
        request.headers["Accept"] = "application/json"
        if let bearer { request.headers["Authorization"] = "Bearer \(bearer)" }
        if let body {
            do {
                request.body = try JSONCoding.encoder().encode(body)
            } catch {
                throw .decoding(error)
            }
            request.headers["Content-Type"] = "application/json"
        }
        let response: HTTPResponse
        do {
            response = try await self.transport.send(request)
        } catch {
            throw .transport(error)
        }
        guard response.status < 400 else { throw LatchkeyError(response: response) }
        return response
    }

    /// Decodes a success response's body.
    static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws(LatchkeyError) -> T {
        do {
            return try JSONCoding.decoder().decode(type, from: response.body)
        } catch {
            throw .decoding(error)
        }
    }

    /// `POST /api/v1/auth/refresh`: a new pair for the refresh token.
    func refresh(_ refreshToken: String) async throws(LatchkeyError) -> TokenResponse {
        let response = try await self.send("POST", "/api/v1/auth/refresh", body: ["refresh_token": .string(refreshToken)])
        return try Self.decode(TokenResponse.self, from: response)
    }
}
