import Foundation
import Testing

@testable import LatchkeyClient

/// The token and sync-cursor stores keep what they are given, the file ones only for their
/// owner and never half-written.
@Suite struct StoreTests {
    let folder: URL

    init() throws {
        self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
    }

    func permissions(_ file: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber).intValue
    }

    @Test func inMemoryStoreKeepsSavesAndClears() async throws {
        let store = InMemoryTokenStore()
        #expect(await store.load() == nil)
        let tokens = try storedTokens(now: Date())
        await store.save(tokens)
        #expect(await store.load() == tokens)
        await store.clear()
        #expect(await store.load() == nil)
    }

    @Test func fileStoreWritesAnOwnerOnlyFileAndReplacesItWhole() async throws {
        let file = self.folder.appendingPathComponent("tokens.json")
        let store = FileTokenStore(file: file)
        #expect(try await store.load() == nil)
        try await store.clear()  // nothing there: no error

        let first = try storedTokens(access: "access-1", now: Date(timeIntervalSince1970: 1_800_000_000.123))
        try await store.save(first)
        #expect(try self.permissions(file) == 0o600)
        #expect(try await FileTokenStore(file: file).load() == first)

        // An existing file readable by others is replaced by an owner-only one.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        let second = try storedTokens(access: "access-2", refresh: "refresh-2", now: Date())
        try await store.save(second)
        #expect(try self.permissions(file) == 0o600)
        #expect(try await store.load()?.accessToken == "access-2")
        // No temporary file left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: self.folder.path) == ["tokens.json"])

        try await store.clear()
        #expect(try await store.load() == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func fileStoreFailsLoudlyWhereItCannotWrite() async throws {
        // Its folder would have to be made inside a regular file.
        let blocker = self.folder.appendingPathComponent("a-file")
        try Data().write(to: blocker)
        let store = FileTokenStore(file: blocker.appendingPathComponent("tokens.json"))
        await #expect(throws: (any Error).self) { try await store.save(try storedTokens(now: Date())) }
    }

    @Test func aSignedInClientResumesFromTheFileStoreAfterARestart() async throws {
        let file = self.folder.appendingPathComponent("tokens.json")
        let clock = TestClock()
        let transport = StubTransport { _ in Reply.tokens(access: "access-1", refresh: "refresh-1", now: clock.now, isNewUser: true) }
        let first = makeClient(transport, clock: clock, store: FileTokenStore(file: file))
        let result = try await first.signIn(with: .idToken("google-token"))
        #expect(result.isNewUser)

        let relaunched = makeClient(transport, clock: clock, store: FileTokenStore(file: file))
        #expect(try await relaunched.authState() == .signedIn(result.user))
        #expect(try await relaunched.validTokens().refreshToken == "refresh-1")
    }

    @Test func syncCursorStoresKeepTheCheckpoint() async throws {
        let checkpoint = SyncCheckpoint(userID: "u1", cursor: "c-9", knownItemIDs: ["a", "b"])
        for store in [InMemorySyncCursorStore() as any SyncCursorStore, FileSyncCursorStore(file: self.folder.appendingPathComponent("sync.json"))] {
            #expect(try await store.load() == nil)
            try await store.save(checkpoint)
            #expect(try await store.load() == checkpoint)
            try await store.clear()
            #expect(try await store.load() == nil)
        }
        let file = self.folder.appendingPathComponent("sync.json")
        try await FileSyncCursorStore(file: file).save(checkpoint)
        #expect(try self.permissions(file) == 0o600)
    }
}
