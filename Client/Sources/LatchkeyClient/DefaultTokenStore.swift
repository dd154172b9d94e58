import Foundation

/// The token store a client gets when its configuration names none: one that outlives the
/// process, so that an app which forgets to pass one is not signed out at every launch.
enum DefaultTokenStore {
    /// In the Keychain on Apple platforms (service: the bundle id plus `.latchkey`, account: the
    /// gateway's host); elsewhere a 0600 file `latchkey/<host>-tokens.json` in
    /// `$XDG_DATA_HOME` (or `~/.local/share`).
    static func make(for baseURL: URL) -> any TokenStore {
        let host = baseURL.host ?? "gateway"
        #if canImport(Security)
        return KeychainTokenStore(service: (Bundle.main.bundleIdentifier ?? "latchkey") + ".latchkey", account: host)
        #else
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return FileTokenStore(file: data.appendingPathComponent("latchkey").appendingPathComponent("\(host)-tokens.json"))
        #endif
    }
}
