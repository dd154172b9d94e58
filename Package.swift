// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "latchkey",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ", path: "Shared/CLibs/CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CHiredis", path: "Shared/CLibs/CHiredis", pkgConfig: "hiredis",
            providers: [.apt(["libhiredis-dev"])]),
        .target(
            name: "Postgres",
            dependencies: [
                "CLibPQ",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/Postgres"),
        .target(
            name: "Redis",
            dependencies: [
                "CHiredis",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/Redis"),
        .target(
            name: "ServiceProtocol",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Protocol"),
        .testTarget(
            name: "ServiceProtocolTests",
            dependencies: [
                "ServiceProtocol",
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres"]),
        .testTarget(name: "RedisTests", dependencies: ["Redis"]),
    ]
)
