import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer, read whole.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var contentType: String?
    public var body: Data
    public var text: String { String(decoding: self.body, as: UTF8.self) }
}

/// GETs `url`; nil while nothing answers there.
public func httpGet(_ url: URL) async -> HTTPAnswer? {
    guard let (data, response) = try? await URLSession.shared.data(from: url), let http = response as? HTTPURLResponse else {
        return nil
    }
    return HTTPAnswer(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"), body: data)
}

/// GETs `url` until something answers, for a server still starting; nil if nothing did within `timeout`.
public func httpGetWhenUp(_ url: URL, timeout: Duration = .seconds(90)) async throws -> HTTPAnswer? {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let answer = await httpGet(url) { return answer }
        try await Task.sleep(for: .milliseconds(100))
    }
    return nil
}
