import Foundation
import LatchkeyClient
import TestSupport
import Testing

/// The client library binds its sessions to the device's key by itself (DESIGN.md section 9.2):
/// on Linux a software P-256 key in a 0600 file beside the tokens; the app does nothing.
@Suite("End to end: the client's bound sessions", .timeLimit(.minutes(4)))
struct ClientBoundSessionTests {
    @Test func theClientBindsItsSessionAndProvesTheKeyOnEveryCall() async throws {
        try await Stack.with { stack in
            let (phone, store) = try ClientLibraryTests.device(stack, name: "phone")
            let subject = "apple-\(UUID().uuidString)"
            try await phone.signIn(with: try await ClientLibraryTests.apple(stack, subject))
            let tokens = try #require(try await store.load())
            #expect(tokens.isBound)
            let keyFile = ClientLibraryTests.keyFile(of: store)
            let mode = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            // The key in the file is the one the token names (`cnf.jkt`).
            let key = try DPoPProofMaker(pkcs8File: keyFile)
            #expect(try BoundSessionTests.claims(tokens.accessToken)["cnf"] as? [String: String] == ["jkt": key.thumbprint])

            // Content, refresh and content again, all with proofs.
            try await phone.favorite("bound")
            let refreshed = try await phone.refreshTokens()
            #expect(refreshed.refreshToken != tokens.refreshToken)
            #expect(refreshed.isBound)
            #expect(try await phone.favoritesPage().items.map(\.itemID) == ["bound"])

            // The stored tokens copied to another device (without the key) are worthless there.
            let thiefFolder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-thief-\(UUID().uuidString)")
            let thiefStore = FileTokenStore(file: thiefFolder.appendingPathComponent("tokens.json"))
            try await thiefStore.save(try #require(try await store.load()))
            let thief = LatchkeyClient(
                configuration: .init(
                    baseURL: try #require(URL(string: stack.gatewayURL)), tokenStore: thiefStore,
                    additionalHeaders: ["X-Forwarded-For": stack.clientAddress]))
            await #expect { try await thief.favoritesPage() } throws: { ClientLibraryTests.isCase($0, "invalid_dpop_proof") }
            await #expect { try await thief.refreshTokens() } throws: { ClientLibraryTests.isCase($0, "invalid_dpop_proof") }
            // The phone's session goes on.
            #expect(try await phone.favoritesPage().items.count == 1)

            // Revocation: the session ended elsewhere is seen as signed out.
            let (tablet, _) = try ClientLibraryTests.device(stack, name: "tablet")
            try await tablet.signIn(with: try await ClientLibraryTests.apple(stack, subject))
            try await tablet.signOut(.everywhere)
            await #expect { try await phone.favoritesPage() } throws: { ClientLibraryTests.isCase($0, "session_revoked") }
            #expect(try await phone.authState() == .signedOut(.sessionRevoked))
        }
    }
}
