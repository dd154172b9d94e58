import Foundation
import Hummingbird
import Logging

/// Serves a `MockIdentityProvider` over HTTP with the providers' URL shapes, plus `/mock/...`
/// routes that mint tokens, rotate keys and show the call log for other processes.
public enum MockIdentityProviderServer {
    /// The Hummingbird application; `onRunning` receives the bound port (useful with port 0).
    public static func application(
        provider: MockIdentityProvider, host: String = "127.0.0.1", port: Int = 0, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        ProviderRoutes(provider: provider).add(to: router)
        ControlRoutes(provider: provider).add(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "mock-idp"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Runs a mock on a free loopback port for the duration of `body`; for tests and benchmarks.
    public static func withRunningMock<T: Sendable>(
        provider: MockIdentityProvider? = nil, logger: Logger = Logger(label: "mock-idp"),
        _ body: (MockIdentityProvider, MockEndpoints) async throws -> T
    ) async throws -> T {
        let provider = try provider ?? MockIdentityProvider()
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = application(provider: provider, logger: logger) { port in continuation.yield(port) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            return try await body(provider, MockEndpoints(baseURL: "http://127.0.0.1:\(port)"))
        }
    }
}

/// JSON and form helpers for the mock's handlers.
enum MockHTTP {
    static func json(_ object: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return body(data, status: status, headers: headers)
    }

    static func json(encodable: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return body(try encoder.encode(encodable), status: status, headers: [:])
    }

    static func body(_ data: Data, status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ code: String, status: HTTPResponse.Status) throws -> Response {
        try json(["error": code], status: status)
    }

    static func bodyData(_ request: Request) async throws -> Data {
        let buffer = try await request.body.collect(upTo: 1 << 20)
        return Data(buffer.readableBytesView)
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(type, from: try await bodyData(request))
    }

    static func decodeForm<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        let text = String(decoding: try await bodyData(request), as: UTF8.self)
        return try URLEncodedFormDecoder().decode(type, from: text)
    }
}
