// swift-tools-version:6.0
import PackageDescription

// LatchkeyClient, the library an app links to use a latchkey gateway (docs/client.md). Its own
// package, with no dependency at all, so that an app resolves nothing of the server's and keeps
// its own platform floor; scripts/lib/check_client_dependencies.py keeps it that way in CI.
// The floor is what its APIs need: `Duration`, `ContinuousClock` and `Task.sleep(for:)`.
let package = Package(
    name: "LatchkeyClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "LatchkeyClient", targets: ["LatchkeyClient"]),
    ],
    targets: [
        // Where there is no CryptoKit (Linux), the device key of a bound session (DPoP) is
        // OpenSSL's libcrypto, a system library: no package dependency.
        .target(
            name: "LatchkeyClient",
            dependencies: [.target(name: "CLatchkeyOpenSSL", condition: .when(platforms: [.linux]))]),
        .systemLibrary(
            name: "CLatchkeyOpenSSL", path: "Sources/CLatchkeyOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .testTarget(name: "LatchkeyClientTests", dependencies: ["LatchkeyClient"]),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
