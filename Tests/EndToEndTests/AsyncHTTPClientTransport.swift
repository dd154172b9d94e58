import AsyncHTTPClient
import Foundation
import LatchkeyClient
import NIOCore
import NIOFoundationEssentialsCompat

/// The client library's `HTTPTransport` over AsyncHTTPClient, for the tests that put the client
/// through network faults. On Linux, `URLSessionTransport` runs on FoundationNetworking, whose
/// URLSession (libcurl under libdispatch sources) can crash the whole process when requests time
/// out or connections are reset (swift-corelibs-foundation#4791 and its kin): a CI run of the
/// chaos suite died of a segfault in libdispatch that way (2026-11-30 15:02 UTC). Apps on Apple
/// platforms use Apple's URLSession, which this does not stand in for; what the faults test is
/// the client's own retries, rotation and sync, which are the same over any transport.
struct AsyncHTTPClientTransport: HTTPTransport {
    /// How long a request without a timeout of its own may take.
    static let defaultTimeout: TimeInterval = 30
    /// The most of an answer's body it reads.
    static let maximumBody = 16 << 20

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let timeout = request.timeout ?? Self.defaultTimeout
        // Cancelling the calling task cancels the request (AsyncHTTPClient's execute does).
        let response = try await HTTPClient.shared.execute(outgoing, timeout: .milliseconds(Int64(timeout * 1000)))
        let body = try await response.body.collect(upTo: Self.maximumBody)
        var headers: [String: String] = [:]
        for header in response.headers {
            headers[header.name] = headers[header.name].map { "\($0), \(header.value)" } ?? header.value
        }
        return HTTPResponse(status: Int(response.status.code), headers: headers, body: Data(buffer: body))
    }
}
