import Foundation

/// How the client talks to the gateway: builds the request, sends it through the transport with
/// a deadline, sends an idempotent one again after no answer or a 429/503, and turns the answer
/// into a value or a ``LatchkeyError``. Knows nothing of tokens but the one it is handed.
struct GatewayConnection: Sendable {
    let baseURL: URL
    let transport: any HTTPTransport
    let additionalHeaders: [String: String]
    /// How long one attempt waits for its answer.
    let requestTimeout: TimeInterval
    /// Attempts of an idempotent request, the first included.
    let maximumAttempts: Int
    /// The longest `Retry-After` the client waits by itself; a longer one is thrown to the app.
    let maximumRetryDelay: TimeInterval
    /// The device key's proofs (DPoP); nil: bearer sessions only.
    var proofs: DPoPProofs? = nil

    /// Which DPoP proof goes with a request: a new one for every attempt (a proof is spent once
    /// the gateway has seen it).
    enum Proof: Sendable {
        case none
        /// A sign-in, guest or refresh: proves the key the session is bound to (when there is one).
        case session
        /// A request with a bound access token: `Authorization: DPoP` and a proof with its hash.
        case bound(accessToken: String)

        var isNone: Bool {
            if case .none = self { true } else { false }
        }
    }

    /// Whether a request may be sent twice with the same effect.
    enum Repeat {
        /// GET, PUT, DELETE and the read-only or set-valued POSTs: retried after no answer, a 429
        /// or a 503.
        case idempotent
        /// Sign-in, toggle, link, logout: never sent again by the client.
        case once
    }

    /// Percent-encodes a path segment (an item id): everything but RFC 3986's unreserved characters.
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends one request (again, when `repeat` allows, after a transient failure); returns the
    /// response when its status is below 400. Throws `CancellationError` when the task is cancelled.
    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [String: JSONValue]? = nil, bearer: String? = nil,
        bound: Bool = false, provesKey: Bool = false, repeat: Repeat, timeout: TimeInterval? = nil
    ) async throws -> HTTPResponse {
        let proof: Proof = if let bearer, bound { .bound(accessToken: bearer) } else if provesKey { .session } else { .none }
        let request = try self.request(
            method, path, query: query, body: body, bearer: bearer, bound: bound, timeout: timeout ?? self.requestTimeout)
        var attempt = 1
        while true {
            do {
                return try await self.sendOnce(request, proof: proof)
            } catch let error as LatchkeyError {
                guard case .idempotent = `repeat`, attempt < self.maximumAttempts, let delay = self.retryDelay(after: error, attempt: attempt)
                else { throw error }
                try await Task.sleep(for: .seconds(delay))
                attempt += 1
            }
        }
    }

    /// How long to wait before sending again after `error`, or nil when it is not worth it.
    func retryDelay(after error: LatchkeyError, attempt: Int) -> TimeInterval? {
        guard error.isTransient else { return nil }
        if let retryAfter = error.detail?.retryAfter { return retryAfter <= self.maximumRetryDelay ? retryAfter : nil }
        // No answer: at once the first time (a dropped connection), then backing off.
        return attempt == 1 ? 0 : min(0.25 * Double(1 << min(attempt - 1, 6)), self.maximumRetryDelay)
    }

    func request(
        _ method: String, _ path: String, query: [(String, String)], body: [String: JSONValue]?, bearer: String?, bound: Bool = false,
        timeout: TimeInterval
    ) throws(LatchkeyError) -> HTTPRequest {
        let base = self.baseURL.absoluteString.hasSuffix("/") ? String(self.baseURL.absoluteString.dropLast()) : self.baseURL.absoluteString
        var text = base + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.pathSegment($0.0))=\(Self.pathSegment($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else { throw .transport(URLError(.badURL)) }
        var request = HTTPRequest(method: method, url: url, headers: self.additionalHeaders, timeout: timeout)
        request.headers["Accept"] = "application/json"
        if let bearer { request.headers["Authorization"] = (bound ? "DPoP " : "Bearer ") + bearer }
        if let body {
            do {
                request.body = try JSONCoding.encoder().encode(body)
            } catch {
                throw .decoding(error)
            }
            request.headers["Content-Type"] = "application/json"
        }
        return request
    }

    /// One attempt: the transport's answer, or `transport(URLError(.timedOut))` once the
    /// request's timeout passed (the transport's request is cancelled then).
    func sendOnce(_ unproven: HTTPRequest, proof: Proof = .none) async throws -> HTTPResponse {
        let response = try await self.exchange(try await self.proven(unproven, proof))
        if let proofs = self.proofs, !proof.isNone,
            await proofs.observe(serverDate: response.header("Date"), now: Date()), response.status == 401,
            LatchkeyError(response: response).code == "invalid_dpop_proof"
        {
            // Refused while the device's clock was off the gateway's: once more, on the
            // gateway's clock (a refused proof changed nothing on the gateway).
            return try Self.accepted(try await self.exchange(try await self.proven(unproven, proof)))
        }
        return try Self.accepted(response)
    }

    /// `response` when its status is below 400, else its error.
    private static func accepted(_ response: HTTPResponse) throws(LatchkeyError) -> HTTPResponse {
        guard response.status < 400 else { throw LatchkeyError(response: response) }
        return response
    }

    /// One request through the transport, whatever its status: the transport's answer, or
    /// `transport(URLError(.timedOut))` once the request's timeout passed.
    private func exchange(_ request: HTTPRequest) async throws -> HTTPResponse {
        let transport = self.transport
        let timeout = request.timeout ?? self.requestTimeout
        let response: HTTPResponse
        do {
            response = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                group.addTask { try await transport.send(request) }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw URLError(.timedOut)
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw URLError(.unknown) }
                return first
            }
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw LatchkeyError.transport(error)
        }
        return response
    }

    /// `request` with a new DPoP proof when it needs one and the client has a device key.
    private func proven(_ request: HTTPRequest, _ proof: Proof) async throws -> HTTPRequest {
        guard let proofs = self.proofs else { return request }
        var request = request
        switch proof {
        case .none: break
        case .session: request.headers["DPoP"] = try await proofs.proof(method: request.method, url: request.url, accessToken: nil, now: Date())
        case .bound(let token):
            request.headers["DPoP"] = try await proofs.proof(method: request.method, url: request.url, accessToken: token, now: Date())
        }
        return request
    }

    /// Decodes a success response's body.
    static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws(LatchkeyError) -> T {
        do {
            return try JSONCoding.decoder().decode(type, from: response.body)
        } catch {
            throw .decoding(error)
        }
    }

    /// One `POST /api/v1/auth/refresh` for the refresh token, waiting `timeout` at most. The
    /// session controller decides about retries (docs/client.md, "Tokens and refresh").
    func refresh(_ refreshToken: String, timeout: TimeInterval) async throws -> TokenResponse {
        let request = try self.request(
            "POST", "/api/v1/auth/refresh", query: [], body: ["refresh_token": .string(refreshToken)], bearer: nil, timeout: timeout)
        return try Self.decode(TokenResponse.self, from: try await self.sendOnce(request, proof: .session))
    }
}
