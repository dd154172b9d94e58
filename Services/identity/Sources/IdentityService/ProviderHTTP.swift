import IdentityAPI
import AsyncHTTPClient
import FoundationEssentials
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

    /// `name=value&...` with each value percent-encoded: every UTF-8 byte but ASCII letters,
    /// digits and `-._~` as `%XX`.
    static func formEncode(_ form: [(String, String)]) -> String {
        form.map { name, value in "\(name)=\(Self.percentEncoded(value))" }.joined(separator: "&")
    }

    private static func percentEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
