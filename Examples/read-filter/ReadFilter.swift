// read-filter: an example of another internal service calling latchkey's backends over RPC,
// with nothing but ServiceProtocol and the API libraries. A recommender has candidate items
// for the person whose access token it was handed, and drops those they have read or unliked:
// `tokens.verify` says who the token belongs to, `content.state.query` what they did.
//
//   TOKENS_ENDPOINTS=127.0.0.1:7002 CONTENT_STATE_ENDPOINTS=127.0.0.1:7003 SERVICE_TOKEN=... \
//       read-filter ACCESS_TOKEN ITEM_ID...
//
// Prints `{"user_id":"…","keep":["…"]}`; exits 1 with the error code when a call fails
// (`unauthorized` for a bad or revoked token), 2 on bad usage.
import ContentStateAPI
import Foundation
import ServiceProtocol
import TokensAPI

struct Output: Encodable, Sendable {
    var userID: String
    var keep: [String]

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case keep
    }
}

func client(_ service: String, _ variable: String) throws -> RPCClient.Configuration {
    let environment = ProcessInfo.processInfo.environment
    guard let endpoints = environment[variable], let token = environment["SERVICE_TOKEN"] else {
        throw UsageError(message: "\(variable) and SERVICE_TOKEN must be set")
    }
    var configuration = RPCClient.Configuration(
        endpoints: try RPCEndpoint.parseList(endpoints), serviceName: service, callerName: "read-filter", serviceToken: token)
    configuration.callTimeout = .seconds(30)
    return configuration
}

struct UsageError: Error {
    var message: String
}

@main
enum ReadFilter {
    static func main() async {
        do {
            print(try await run(CommandLine.arguments))
        } catch let error as UsageError {
            FileHandle.standardError.write(Data((error.message + "\n").utf8))
            exit(2)
        } catch let error as RPCError {
            FileHandle.standardError.write(Data("\(error.code.rawValue): \(error.message)\n".utf8))
            exit(1)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
    }

    /// Verifies the token, asks for the items' state, and answers the items to keep as JSON.
    static func run(_ arguments: [String]) async throws -> String {
        guard arguments.count >= 3 else { throw UsageError(message: "usage: read-filter ACCESS_TOKEN ITEM_ID...") }
        let accessToken = arguments[1]
        let candidates = Array(arguments.dropFirst(2))
        let tokens = try client("tokens", "TOKENS_ENDPOINTS")
        let contentState = try client("content-state", "CONTENT_STATE_ENDPOINTS")
        let output = try await RPCClient.withClient(configuration: tokens) { tokens in
            try await RPCClient.withClient(configuration: contentState) { contentState in
                let caller = try await tokens.call(Tokens.verify, VerifyParams(accessToken: accessToken), options: .init(idempotent: true))
                let states = try await contentState.call(
                    ContentState.stateQuery, StateQueryParams(userID: caller.userID, itemIDs: candidates), options: .init(idempotent: true))
                let keep = candidates.filter { id in
                    guard let flags = states.items[id] else { return true }
                    return !flags.read && !flags.unliked
                }
                return Output(userID: caller.userID.uuidString.lowercased(), keep: keep)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(output), as: UTF8.self)
    }
}
