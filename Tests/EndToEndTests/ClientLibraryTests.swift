import Foundation
import LatchkeyClient
import Synchronization
import TestSupport
import Testing

/// The client library apps link (issue 18), over URLSession against the real stack: sign-in with
/// Apple's nonce and Google's tokens, linking, sessions, favorites, sync between two devices,
/// refresh ahead of expiry and on `token_expired`, a logout elsewhere and an account deletion
/// seen as signed out.
@Suite("End to end: client library", .serialized, .timeLimit(.minutes(5)))
struct ClientLibraryTests {
    /// The URLSession transport, counting the requests to each path.
    final class CountingTransport: HTTPTransport {
        let transport = URLSessionTransport()
        private let counts = Mutex<[String: Int]>([:])

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            self.counts.withLock { $0[request.url.path, default: 0] += 1 }
            return try await self.transport.send(request)
        }

        func count(_ path: String) -> Int { self.counts.withLock { $0[path] ?? 0 } }
    }

    /// A device: a client of the stack's gateway with its own token file (or `file`, which
    /// another client may share).
    static func device(
        _ stack: Stack, name: String, transport: any HTTPTransport = URLSessionTransport(), file: URL? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> (LatchkeyClient, FileTokenStore) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-client-e2e-\(UUID().uuidString)")
        let store = FileTokenStore(file: file ?? folder.appendingPathComponent("tokens.json"))
        let client = LatchkeyClient(
            configuration: .init(
                baseURL: try #require(URL(string: stack.gatewayURL)), tokenStore: store, transport: transport, deviceName: name,
                additionalHeaders: ["X-Forwarded-For": stack.clientAddress], now: now))
        return (client, store)
    }

    /// A phone and a tablet signed in with one Apple account.
    static func phoneAndTablet(
        _ stack: Stack, subject: String = "apple-\(UUID().uuidString)"
    ) async throws -> ((LatchkeyClient, FileTokenStore), (LatchkeyClient, FileTokenStore)) {
        let phone = try Self.device(stack, name: "phone")
        let tablet = try Self.device(stack, name: "tablet")
        try await phone.0.signIn(with: try await Self.apple(stack, subject))
        try await tablet.0.signIn(with: try await Self.apple(stack, subject))
        return (phone, tablet)
    }

    /// What Sign in with Apple gives an app for the mock's Apple account `subject`.
    static func apple(_ stack: Stack, _ subject: String) async throws -> AppleCredential {
        AppleCredential(identityToken: try await stack.appleToken(subject: subject))
    }

    /// Where the client keeps the device key its sessions are bound to, beside the tokens.
    static func keyFile(of store: FileTokenStore) -> URL {
        store.file.deletingLastPathComponent().appendingPathComponent(store.file.lastPathComponent + ".dpop-key")
    }

    static func isCase(_ error: any Error, _ code: String) -> Bool {
        (error as? LatchkeyError)?.code == code
    }

    @Test func signInLinkSessionsAndFavorites() async throws {
        try await Stack.with { stack in
            let (phone, _) = try Self.device(stack, name: "Ada's iPhone")
            let subject = "apple-\(UUID().uuidString)"
            let nonce = AppleNonce()
            var name = PersonNameComponents()
            name.givenName = "Ada"
            name.familyName = "Lovelace"
            // The gateway checks the token's nonce claim against the library's SHA-256 of the raw nonce.
            let signIn = try await phone.signIn(
                with: AppleCredential(
                    identityToken: try await stack.appleToken(subject: subject, nonce: nonce.sha256), fullName: name, nonce: nonce.raw))
            #expect(signIn.isNewUser)
            #expect(signIn.user.displayName == "Ada Lovelace")
            #expect(signIn.user.providers == [.apple])
            #expect(try await phone.authState() == .signedIn(signIn.user))
            await #expect {
                try await phone.signIn(
                    with: AppleCredential(
                        identityToken: try await stack.appleToken(subject: subject, nonce: nonce.sha256), nonce: "another nonce"))
            } throws: { Self.isCase($0, "invalid_identity_token") }
            #expect(try await phone.currentUser().id == signIn.user.id)  // the failed sign-in left the session alone

            // Google, with an ID token and with an access token, linked to the same user.
            let googleSubject = "google-\(UUID().uuidString)"
            let linked = try await phone.link(.google(.idToken(try await stack.googleToken(subject: googleSubject))))
            #expect(Set(linked.providers) == [.apple, .google])
            let (laptop, _) = try Self.device(stack, name: "Ada's Mac")
            let viaAccessToken = try await laptop.signIn(with: .accessToken(try await stack.googleAccessToken(subject: googleSubject)))
            #expect(viaAccessToken.user.id == signIn.user.id)
            #expect(!viaAccessToken.isNewUser)
            #expect(try await phone.unlink(.google).providers == [.apple])
            await #expect { try await phone.unlink(.apple) } throws: { Self.isCase($0, "last_identity") }
            let strangerSubject = "google-\(UUID().uuidString)"
            let (stranger, _) = try Self.device(stack, name: "someone else's phone")
            try await stranger.signIn(with: .idToken(try await stack.googleToken(subject: strangerSubject)))
            await #expect {
                try await phone.link(.google(.idToken(try await stack.googleToken(subject: strangerSubject))))
            } throws: { Self.isCase($0, "identity_already_linked") }

            // Sessions: both devices, this one marked current; ending the laptop's signs it out.
            let sessions = try await phone.sessions()
            #expect(Set(sessions.compactMap(\.deviceName)) == ["Ada's iPhone", "Ada's Mac"])
            #expect(sessions.filter(\.current).map(\.deviceName) == ["Ada's iPhone"])
            let laptopSession = try #require(sessions.first { !$0.current })
            try await phone.deleteSession(id: laptopSession.id)
            await #expect { try await laptop.currentUser() } throws: { Self.isCase($0, "session_revoked") }
            #expect(try await laptop.authState() == .signedOut(.sessionRevoked))
            // Another user's session is not found, and stays.
            let strangerSession = try #require(try await stranger.sessions().first)
            await #expect { try await phone.deleteSession(id: strangerSession.id) } throws: { Self.isCase($0, "not_found") }
            #expect(try await stranger.currentUser().id != signIn.user.id)

            // Favorites with an id that needs percent-encoding, paged as an async sequence.
            let favorite = try await phone.favorite("article/42 ü", nickname: .set("later"), position: .set(3))
            #expect(favorite.itemID == "article/42 ü")
            #expect(favorite.nickname == "later")
            #expect(try await phone.favorite("article/42 ü", nickname: .cleared).nickname == nil)
            for index in 0..<4 { try await phone.favorite("item-\(index)", position: .set(Int64(10 + index))) }
            var listed: [String] = []
            for try await favorite in phone.favorites(order: .position, pageSize: 2) { listed.append(favorite.itemID) }
            #expect(listed == ["article/42 ü", "item-0", "item-1", "item-2", "item-3"])
            #expect(try await phone.toggleFavorite("item-0") == false)
            #expect(try await phone.toggleFavorite("item-0") == true)
            try await phone.unfavorite("item-1")
            try await phone.markRead("b")
            try await phone.unlike("c")
            #expect(try await phone.setRead(true, for: ["x", "y"]) == 2)
            var read: [String] = []
            for try await mark in phone.readItems(pageSize: 1) { read.append(mark.itemID) }
            #expect(Set(read) == ["b", "x", "y"])
            var unliked: [String] = []
            for try await mark in phone.unlikedItems() { unliked.append(mark.itemID) }
            #expect(unliked == ["c"])
            let states = try await phone.state(of: ["item-0", "item-1", "b", "c", "nothing"])
            #expect(states["item-0"] == ItemState(favorited: true, read: false, unliked: false))
            #expect(states["item-1"] == ItemState(favorited: false, read: false, unliked: false))
            #expect(states["b"] == ItemState(favorited: false, read: true, unliked: false))
            #expect(states["c"] == ItemState(favorited: false, read: false, unliked: true))
            #expect(states["nothing"] == ItemState(favorited: false, read: false, unliked: false))
            try await phone.markUnread("b")
            try await phone.removeUnlike("c")
            #expect(try await phone.state(of: ["b", "c"]).values.allSatisfy { $0 == ItemState(favorited: false, read: false, unliked: false) })
        }
    }

    @Test func twoDevicesSyncFavoritesThroughTheChangesFeed() async throws {
        try await Stack.with { stack in
            let ((phone, _), (tablet, _)) = try await Self.phoneAndTablet(stack)
            let cursorFile = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-sync-\(UUID().uuidString).json")

            try await phone.favorite("x", nickname: .set("first"))
            try await phone.favorite("y")
            try await phone.markRead("z")
            let first = try await ContentSync(client: tablet, store: FileSyncCursorStore(file: cursorFile), pageSize: 2).sync { _ in }
            #expect(Set(first.inserted.map(\.itemID)) == ["x", "y", "z"])
            #expect(first.inserted.first { $0.itemID == "x" }?.nickname == "first")
            #expect(first.updated.isEmpty && first.removed.isEmpty)

            try await phone.favorite("x", nickname: .set("renamed"))
            try await phone.unfavorite("y")
            try await phone.favorite("w")
            // A new ContentSync on the same file (the app relaunched) goes on from the stored cursor.
            let second = try await ContentSync(client: tablet, store: FileSyncCursorStore(file: cursorFile)).sync { _ in }
            #expect(second.inserted.map(\.itemID) == ["w"])
            #expect(second.updated.map(\.itemID) == ["x"])
            #expect(second.updated.first?.nickname == "renamed")
            #expect(second.removed.map(\.itemID) == ["y"])
            #expect(try await ContentSync(client: tablet, store: FileSyncCursorStore(file: cursorFile)).sync { _ in }.isEmpty)

            // And the other way round.
            try await tablet.unfavorite("x")
            let phoneSync = try await ContentSync(client: phone).sync { _ in }
            #expect(Set(phoneSync.inserted.map(\.itemID)) == ["z", "w"])
        }
    }

    @Test func tokensAreRefreshedOnceAheadOfExpiryWhateverTheDeviceClockAndOnTokenExpired() async throws {
        try await Stack.with(gatewayEnvironment: ["TOKEN_CLOCK_LEEWAY": "0"], tokensEnvironment: ["ACCESS_TOKEN_TTL": "10"]) { stack in
            let subject = "apple-\(UUID().uuidString)"
            // Three devices of one user: the clock right, an hour slow, an hour fast. Expiry is
            // counted from `expires_in` on the monotonic clock: all three behave the same.
            var devices: [(LatchkeyClient, FileTokenStore, CountingTransport)] = []
            for offset in [0.0, -3600, 3600] {
                let transport = CountingTransport()
                let (client, store) = try Self.device(stack, name: "device \(offset)", transport: transport, now: { Date().addingTimeInterval(offset) })
                try await client.signIn(with: try await Self.apple(stack, subject))
                devices.append((client, store, transport))
            }
            let signedIn = Date()
            // The first half of the tokens' 10 s: no refresh, however many calls.
            for (client, _, transport) in devices {
                for _ in 0..<5 { _ = try await client.favoritesPage() }
                #expect(transport.count("/api/v1/auth/refresh") == 0)
            }
            // 2 s before expiry: inside the refresh margin (half of 10 s); one refresh each, ahead
            // of the request (no request went out with the old token).
            try await Task.sleep(for: .seconds(max(0, 8 - Date().timeIntervalSince(signedIn))))
            for (client, store, transport) in devices {
                let before = try #require(try await store.load()?.refreshToken)
                _ = try await client.favoritesPage()
                _ = try await client.favoritesPage()
                #expect(transport.count("/api/v1/auth/refresh") == 1)
                #expect(transport.count("/api/v1/favorites") == 7)
                #expect(try await store.load()?.refreshToken != before)
            }

            // A client whose store says the token is fresh when the gateway says it expired: the
            // gateway answers token_expired, and 20 calls share one refresh and retry once each.
            let (laptop, laptopStore) = try Self.device(stack, name: "laptop")
            try await laptop.signIn(with: try await Self.apple(stack, subject))
            var stale = try #require(try await laptopStore.load())
            try await Task.sleep(for: .seconds(11.5))
            stale.receivedAt = Date()
            stale.lifetime = 900
            let tabletFile = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-tablet-\(UUID().uuidString)/tokens.json")
            try await FileTokenStore(file: tabletFile).save(stale)
            // The same device: its key (the session is bound to it) goes with its tokens.
            try FileManager.default.copyItem(at: Self.keyFile(of: laptopStore), to: Self.keyFile(of: FileTokenStore(file: tabletFile)))
            let transport = CountingTransport()
            let (tablet, _) = try Self.device(stack, name: "tablet", transport: transport, file: tabletFile)
            try await withThrowingTaskGroup(of: [String: ItemState].self) { group in
                for index in 0..<20 { group.addTask { try await tablet.state(of: ["item-\(index)"]) } }
                var answers = 0
                for try await states in group {
                    #expect(states.count == 1)
                    answers += 1
                }
                #expect(answers == 20)
            }
            #expect(transport.count("/api/v1/auth/refresh") == 1)
            // At least the first call went out with the expired token and was retried; none more than twice.
            #expect((21...40).contains(transport.count("/api/v1/state/query")))
            #expect(try await tablet.authState().user != nil)
        }
    }

    @Test func remoteLogoutAndAccountDeletionAreSeenAsSignedOut() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let ((phone, phoneStore), (tablet, tabletStore)) = try await Self.phoneAndTablet(stack, subject: subject)
            // Two subscribers on the tablet, as a SwiftUI scene and a background task would be.
            var screen = tablet.authStates().makeAsyncIterator()
            var background = tablet.authStates().makeAsyncIterator()
            #expect(await screen.next()?.user != nil)
            #expect(await background.next()?.user != nil)

            // "Log out other devices" on the phone: the tablet's next call finds out.
            try await phone.signOut(.otherDevices)
            #expect(try await phone.currentUser().providers == [.apple])
            await #expect { try await tablet.favorite("x") } throws: { Self.isCase($0, "session_revoked") }
            #expect(await screen.next() == .signedOut(.sessionRevoked))
            #expect(await background.next() == .signedOut(.sessionRevoked))
            #expect(try await tabletStore.load() == nil)
            await #expect { try await tablet.favorite("x") } throws: { error in
                if case LatchkeyError.notSignedIn = error { return true }
                return false
            }

            // Account deletion on the phone: it is signed out as deleted; the tablet, signed in
            // again, finds out on its next call; the same Apple account then makes a new user.
            try await tablet.signIn(with: try await Self.apple(stack, subject))
            #expect(await screen.next()?.user != nil)
            try await phone.favorite("kept-until-deletion")
            let deletedUser = try await phone.currentUser().id
            let traces = try await DeletionOracle.Traces.of(user: deletedUser)
            try await phone.deleteAccount()
            #expect(try await phone.authState() == .signedOut(.accountDeleted))
            // The deleted user's rows, not the next one's: nothing left but what is kept on purpose.
            try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            #expect(try await phoneStore.load() == nil)
            await #expect { try await tablet.currentUser() } throws: { Self.isCase($0, "session_revoked") }
            #expect(await screen.next() == .signedOut(.sessionRevoked))
            let again = try await phone.signIn(with: try await Self.apple(stack, subject))
            #expect(again.isNewUser)
            #expect(try await phone.favoritesPage().items.isEmpty)

            // Signing out this device ends its session on the gateway too.
            let token = try #require(try await phoneStore.load()?.accessToken)
            try await phone.signOut()
            #expect(try await phone.authState() == .signedOut(.signedOut))
            let key = try DPoPProofMaker(pkcs8File: Self.keyFile(of: phoneStore))
            let proof = key.proof(method: "GET", url: stack.gatewayURL + "/api/v1/auth/me", accessToken: token)
            #expect(try await BoundSessionTests.bound(stack, "GET", "/api/v1/auth/me", token: token, proof: proof).errorCode == "session_revoked")
        }
    }
}
