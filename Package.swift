// swift-tools-version:6.1
import PackageDescription

// Every module a target imports is one of its dependencies here, never reached through another
// target's (scripts/lib/check_imports.py checks it in CI).
let nio = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioFoundation = Target.Dependency.product(name: "NIOFoundationEssentialsCompat", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let unixSignals = Target.Dependency.product(name: "UnixSignals", package: "swift-service-lifecycle")
let jwt = Target.Dependency.product(name: "JWTKit", package: "jwt-kit")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let cryptoExtras = Target.Dependency.product(name: "_CryptoExtras", package: "swift-crypto")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let metrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let metricsTestKit = Target.Dependency.product(name: "MetricsTestKit", package: "swift-metrics")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")

let package = Package(
    name: "latchkey",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "identity", targets: ["identity"]),
        .executable(name: "tokens", targets: ["tokens"]),
        .executable(name: "content-state", targets: ["content-state"]),
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "latchkey-services", targets: ["latchkey-services"]),
        .executable(name: "mock-idp", targets: ["mock-idp"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
    ],
    // Exact versions: Package.resolved is not committed, and the image and CI must build the
    // same code as a developer's machine.
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", exact: "2.13.0"),
        // No traits: the default ones link full Foundation (and ICU) into every service for a
        // form coder's DateFormatter, and swift-configuration, neither of which we use.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", exact: "2.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        // The client library apps link, its own package (Client/Package.swift, no dependency): the end-to-end tests use it.
        .package(path: "Client"),
    ],
    targets: [
        // C libraries.
        .systemLibrary(
            name: "CLibPQ", path: "Shared/CLibs/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CLibCrypto", path: "Shared/CLibs/CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // OpenSSL's TLS for rediss:// (hiredis 0.14 has none).
        .systemLibrary(
            name: "CLibSSL", path: "Shared/CLibs/CLibSSL", pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CHiredis", path: "Shared/CLibs/CHiredis", pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CGlibcExtras", path: "Shared/CLibs/CGlibcExtras"),

        // Shared libraries.
        // Hand-written JSON coders for RPC payloads (docs/benchmarks.md: the instruction counts
        // that justify them); anything they do not handle goes to Foundation's.
        .target(name: "CompactJSON", dependencies: ["TextCoding"], path: "Shared/CompactJSON"),
        .target(
            name: "ServiceProtocol",
            dependencies: [
                "CompactJSON", "TextCoding", crypto, nio, nioPosix, nioFoundation, logging, lifecycle, metrics,
                .product(name: "NIOExtras", package: "swift-nio-extras"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Shared/Protocol"),
        // DPoP proofs (RFC 9449): parsed with CompactJSON, verified with swift-crypto (the gateway's and the fuzzer's).
        .target(name: "DPoP", dependencies: ["CompactJSON", "TextCoding", crypto], path: "Shared/DPoP"),
        // How opaque values are spelled as text: base64url, random UUIDs.
        .target(name: "TextCoding", dependencies: ["CGlibcExtras"], path: "Shared/TextCoding"),
        // Threads of our own, for loops that block in the kernel.
        .target(name: "SystemThreads", dependencies: ["CGlibcExtras"], path: "Shared/SystemThreads"),
        .target(name: "Postgres", dependencies: ["CLibPQ", "CGlibcExtras", "SystemThreads", "TextCoding", nio, nioPosix, logging, metrics], path: "Shared/Postgres"),
        .target(name: "Redis", dependencies: ["CHiredis", "CLibSSL", "TextCoding", nio, nioPosix, logging, metrics], path: "Shared/Redis"),
        .target(
            name: "ServiceKit",
            dependencies: [
                "ServiceProtocol", "ServiceLaunch", "Redis", "SystemThreads", "TextCoding", "CGlibcExtras", nio, nioPosix, logging, lifecycle, unixSignals, metrics, prometheus,
                hummingbird,
            ],
            path: "Shared/ServiceKit"),
        // What a backend on Postgres adds to ServiceKit: its pool with migrations applied, and
        // Postgres failures as RPC codes (the gateway keeps none, so links no libpq).
        .target(name: "PostgresService", dependencies: ["Postgres", "ServiceKit", "ServiceProtocol", logging], path: "Shared/PostgresService"),

        // The audit trail (DESIGN.md section 9.3): its types, shared by the services that record
        // and the gateway that merges their trails, and the store each service keeps in its schema.
        .target(name: "AuditAPI", dependencies: ["TextCoding"], path: "Shared/AuditTrail/API"),
        .target(
            name: "AuditTrail", dependencies: ["AuditAPI", "Postgres", "ServiceKit", "ServiceProtocol", "TextCoding", logging, lifecycle],
            path: "Shared/AuditTrail/Store"),

        // Services: a library with the logic each, all four run by one executable
        // (`latchkey-services`: their common code is in memory once), and a launcher each that
        // runs it under the service's name.
        .target(name: "ServiceLaunch", path: "Shared/ServiceLaunch"),
        .executableTarget(
            name: "latchkey-services",
            dependencies: ["ServiceLaunch", "ServiceKit", "Gateway", "IdentityService", "TokenService", "ContentStateService"],
            path: "Services/latchkey-services/Sources/latchkey-services",
            // Linked by the toolchain's lld with packed relative relocations (DT_RELR, glibc
            // 2.36+): the 55,000 relative relocations of a position-independent executable
            // take 15 kB instead of 1.3 MB that every process start reads and keeps in memory.
            linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"], .when(platforms: [.linux]))]),
        .target(name: "IdentityAPI", dependencies: ["AuditAPI", "ServiceProtocol", "TextCoding", "CompactJSON"], path: "Services/identity/Sources/IdentityAPI"),
        .target(
            name: "IdentityService",
            dependencies: [
                "IdentityAPI", "AuditAPI", "AuditTrail", "ServiceKit", "PostgresService", "ServiceProtocol", "CompactJSON", "TextCoding", "Postgres", "Redis", jwt, crypto,
                httpClient, metrics,
                logging, lifecycle, nio,
                nioHTTP1,
            ],
            path: "Services/identity/Sources/IdentityService", resources: [.embedInCode("Migrations")]),
        .executableTarget(name: "identity", dependencies: ["ServiceLaunch"], path: "Services/identity/Sources/identity"),
        .target(name: "TokensAPI", dependencies: ["AuditAPI", "ServiceProtocol", "TextCoding", "CompactJSON"], path: "Services/tokens/Sources/TokensAPI"),
        // The access token's claims as JWTKit signs and verifies them: tokens and the gateway share them.
        .target(name: "TokensJWT", dependencies: ["TokensAPI", "TextCoding", jwt], path: "Services/tokens/Sources/TokensJWT"),
        .target(
            name: "TokenService",
            dependencies: [
                "TokensAPI", "TokensJWT", "AuditAPI", "AuditTrail", "CompactJSON", "ServiceKit", "PostgresService", "ServiceProtocol", "TextCoding", "Postgres", "Redis",
                "CLibCrypto", jwt,
                crypto, cryptoExtras, metrics,
                logging, lifecycle,
            ],
            path: "Services/tokens/Sources/TokenService", resources: [.embedInCode("Migrations")]),
        .executableTarget(name: "tokens", dependencies: ["ServiceLaunch"], path: "Services/tokens/Sources/tokens"),
        .target(name: "ContentStateAPI", dependencies: ["ServiceProtocol", "TextCoding", "CompactJSON"], path: "Services/content-state/Sources/ContentStateAPI"),
        .target(
            name: "ContentStateService",
            dependencies: ["ContentStateAPI", "ServiceKit", "PostgresService", "ServiceProtocol", "TextCoding", "Postgres", logging, lifecycle],
            path: "Services/content-state/Sources/ContentStateService",
            resources: [.embedInCode("Migrations")]),
        .executableTarget(
            name: "content-state", dependencies: ["ServiceLaunch"], path: "Services/content-state/Sources/content-state"),
        .target(
            name: "Gateway",
            dependencies: [
                "ServiceKit", "ServiceProtocol", "AccountAdministration", "AuditAPI", "IdentityAPI", "TokensAPI", "ContentStateAPI", "ContentStateService", "Postgres", "PostgresService", "TokensJWT", "TextCoding", "CompactJSON", "DPoP", "Redis", hummingbird, jwt, crypto, logging, lifecycle, metrics, nio, nioPosix,
                nioFoundation,
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"), nioHTTP1,
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ],
            path: "Services/gateway/Sources/Gateway",
            // openapi.json (generated from openapi.yaml) and the admin console travel inside the executable.
            resources: [.embedInCode("Resources")]),
        .executableTarget(name: "gateway", dependencies: ["ServiceLaunch"], path: "Services/gateway/Sources/gateway"),

        // What an operator does to an account across the backends (the admin API and the CLI).
        .target(
            name: "AccountAdministration", dependencies: ["ServiceProtocol", "IdentityAPI", "TokensAPI", "ContentStateAPI"],
            path: "Shared/AccountAdministration"),
        // The operator CLI: keys, migrations, users.
        .executableTarget(
            name: "latchkey",
            dependencies: [
                "AccountAdministration", "IdentityAPI", "ServiceProtocol", "ServiceKit", "Postgres", "IdentityService", "TokenService",
                "ContentStateService", logging, .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/latchkey/Sources/latchkey"),

        // The mock Apple / Google identity provider for tests, the local stack and benchmarks.
        .target(
            name: "MockIdentityProvider", dependencies: ["TextCoding", hummingbird, jwt, crypto, cryptoExtras, logging],
            path: "Tools/mock-idp/Sources/MockIdentityProvider"),
        .executableTarget(
            name: "mock-idp", dependencies: ["MockIdentityProvider", "ServiceKit", logging],
            path: "Tools/mock-idp/Sources/mock-idp"),

        // Fuzz targets over the parsers of untrusted input; scripts/fuzz builds latchkey-fuzz with
        // libFuzzer (--sanitize fuzzer --sanitize address, -DFUZZING), an ordinary build replays saved inputs.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "ServiceProtocol", "CompactJSON", "DPoP", "Gateway", "IdentityAPI", "IdentityService", "TokensAPI", "ContentStateAPI", "ContentStateService",
                "Redis", "TextCoding", crypto, cryptoExtras, jwt, nio,
            ],
            path: "Tools/fuzz/Sources/FuzzTargets"),
        .executableTarget(name: "latchkey-fuzz", dependencies: ["FuzzTargets"], path: "Tools/fuzz/Sources/latchkey-fuzz"),

        // An example of another internal service: it calls the backends with nothing but
        // ServiceProtocol and the API libraries (docs/protocol.md).
        .executableTarget(
            name: "read-filter", dependencies: ["ServiceProtocol", "TokensAPI", "ContentStateAPI"], path: "Examples/read-filter"),

        // Benchmarks (run by scripts/bench).
        .target(name: "BenchmarkSupport", dependencies: ["Postgres"], path: "Benchmarks/BenchmarkSupport"),
        .executableTarget(
            name: "foundation-bench",
            dependencies: ["BenchmarkSupport", "ServiceKit", "ServiceProtocol", "Postgres", logging, nio, nioPosix, metrics, prometheus],
            path: "Benchmarks/foundation-bench"),
        .executableTarget(
            name: "tokens-bench",
            dependencies: [
                "BenchmarkSupport", "TokenService", "TokensAPI", "ServiceKit", "ServiceProtocol", "Postgres", jwt, logging, lifecycle,
                nio, nioPosix,
            ],
            path: "Benchmarks/tokens-bench"),
        .executableTarget(
            name: "json-coders-bench", dependencies: ["ServiceProtocol", "ContentStateAPI", "TokensAPI"],
            path: "Benchmarks/json-coders-bench"),
        .executableTarget(
            name: "content-state-bench",
            dependencies: [
                "BenchmarkSupport", "ContentStateService", "ContentStateAPI", "ServiceKit", "ServiceProtocol", "Postgres", logging,
                nio, nioPosix,
            ],
            path: "Benchmarks/content-state-bench"),
        .executableTarget(
            name: "identity-bench",
            dependencies: [
                "BenchmarkSupport", "IdentityService", "IdentityAPI", "MockIdentityProvider", "ServiceKit", "ServiceProtocol", "Postgres",
                logging, nio, nioPosix,
            ],
            path: "Benchmarks/identity-bench"),

        // Tests.
        .testTarget(
            name: "ServiceProtocolTests",
            dependencies: [
                "ServiceProtocol", "CompactJSON", "TextCoding", "TestSupport", logging, metrics, metricsTestKit, nio, nioPosix, nioFoundation,
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]),
        .testTarget(
            name: "PostgresTests", dependencies: ["Postgres", "ServiceProtocol", "TestSupport", nio, nioPosix, logging, metrics, metricsTestKit]),
        .testTarget(name: "RedisTests", dependencies: ["Redis", "TestSupport", logging, metrics, metricsTestKit]),
        .testTarget(
            name: "ServiceKitTests",
            dependencies: [
                "ServiceKit", "PostgresService", "ServiceProtocol", "Postgres", "Redis", "CGlibcExtras", "SystemThreads", "TestSupport", hummingbird, logging,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
        .testTarget(name: "TextCodingTests", dependencies: ["TextCoding"]),
        .testTarget(name: "CompactJSONTests", dependencies: ["CompactJSON", "TextCoding"]),
        .testTarget(name: "TokensJWTTests", dependencies: ["TokensJWT", jwt]),
        .testTarget(name: "DPoPTests", dependencies: ["DPoP", "TestSupport", "TextCoding", crypto]),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzTargets"]),
        .target(name: "TestSupport", dependencies: ["Redis", "Postgres", "ServiceProtocol", "CompactJSON", "TextCoding", logging, jwt, crypto], path: "Tests/TestSupport"),
        .testTarget(
            name: "ExecutableTests",
            dependencies: ["ServiceProtocol", "ServiceKit", "ServiceLaunch", "TestSupport", "Postgres", "ContentStateAPI", "TokensAPI", "IdentityAPI", logging]),
        .testTarget(
            name: "IdentityServiceTests",
            dependencies: [
                "IdentityService", "IdentityAPI", "AuditAPI", "MockIdentityProvider", "Postgres", "Redis", "ServiceKit", "PostgresService", "ServiceProtocol",
                "CompactJSON", "TextCoding", "TestSupport", jwt, crypto, logging, hummingbird, .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "TokenServiceTests",
            dependencies: [
                "TokenService", "TokensAPI", "AuditTrail", "TokensJWT", "TextCoding", "CompactJSON", "TestSupport", "ServiceKit", "PostgresService", "ServiceProtocol", "Postgres", "Redis", jwt, crypto, cryptoExtras,
                logging, lifecycle,
            ]),
        .testTarget(
            name: "ContentStateServiceTests",
            dependencies: [
                "ContentStateService", "ContentStateAPI", "CompactJSON", "TextCoding", "ServiceKit", "PostgresService", "ServiceProtocol", "Postgres", "TestSupport", logging, nio,
                nioFoundation,
            ]),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "Redis", "ServiceKit", "ServiceProtocol", "IdentityAPI", "TokensAPI", "ContentStateAPI", "TextCoding", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"), logging, lifecycle, jwt, crypto, cryptoExtras, nio, hummingbird,
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestSupport", "TextCoding", "Postgres", "Redis", .product(name: "LatchkeyClient", package: "Client"), jwt, httpClient, logging, nio, nioFoundation]),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
