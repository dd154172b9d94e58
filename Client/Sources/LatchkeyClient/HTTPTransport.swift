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
    /// How long the client waits for the answer; it also cancels the request after it.
    public var timeout: TimeInterval?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
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
/// every HTTP status, 4xx and 5xx included, is a response. It should stop the request when its
/// task is cancelled (the client cancels a request past its timeout that way).
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

    /// Sends the request; cancelling the calling task cancels the `URLSessionTask` and throws
    /// `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        if let timeout = request.timeout { urlRequest.timeoutInterval = timeout }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let running = RunningTask()
        let data: Data
        let response: URLResponse
        do {
            // A completion handler rather than `data(for:)`: the same code on every Foundation.
            (data, response) = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                    let task = self.session.dataTask(with: urlRequest) { data, response, error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else if let response {
                            continuation.resume(returning: (data ?? Data(), response))
                        } else {
                            continuation.resume(throwing: URLError(.badServerResponse))
                        }
                    }
                    if running.start(task) == false { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                running.cancel()
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}

/// The `URLSessionTask` of one request, which a cancellation handler on another thread may
/// cancel before or after it started.
private final class RunningTask: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    /// Starts `task`, or returns false when the request was cancelled already.
    func start(_ task: URLSessionTask) -> Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        guard !self.cancelled else { return false }
        self.task = task
        task.resume()
        return true
    }

    func cancel() {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.cancelled = true
        self.task?.cancel()
    }
}
