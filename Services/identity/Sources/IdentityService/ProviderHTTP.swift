import IdentityAPI
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The one HTTP client the service uses to talk to Apple and Google, with a per-call timeout.
/// Transport failures come back as `IdentityError.providerUnavailable`.
struct ProviderHTTP: Sendable {
    /// A provider's answer: status, headers and at most 1 MiB of body.
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONDecoder().decode(type, from: Data(self.body.readableBytesView))
        }
    }

    let client: HTTPClient
    let timeout: TimeInterval

    func get(_ url: String, headers: [(String, String)] = [], provider: IdentityProvider) async throws(IdentityError) -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return try await self.send(request, provider: provider)
    }

    /// POSTs `form` as `application/x-www-form-urlencoded` (keeps secrets out of URLs and logs).
    func postForm(_ url: String, _ form: [(String, String)], provider: IdentityProvider) async throws(IdentityError) -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(ByteBuffer(string: Self.formEncode(form)))
        return try await self.send(request, provider: provider)
    }

    private func send(_ request: HTTPClientRequest, provider: IdentityProvider) async throws(IdentityError) -> Reply {
        do {
            let response = try await self.client.execute(request, timeout: .milliseconds(Int64(self.timeout * 1000)))
            let body = try await response.body.collect(upTo: 1 << 20)
            return Reply(status: Int(response.status.code), headers: response.headers, body: body)
        } catch {
            throw .providerUnavailable(provider, reason: "HTTP call failed: \(type(of: error))")
        }
    }

    static func formEncode(_ form: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return form.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }
}
