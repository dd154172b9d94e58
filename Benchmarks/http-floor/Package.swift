// swift-tools-version:6.0
import PackageDescription

// The HTTP floor under the gateway (scripts/bench-http-floor; docs/benchmarks.md, "Where the
// time goes"): three servers that answer GET /healthz with the gateway's body and nothing else,
// one a layer each. A package of its own so that CI never builds it; its versions are the main
// package's.
let nio = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")

let package = Package(
    name: "http-floor",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", exact: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
    ],
    targets: [
        .target(name: "FloorServer", dependencies: [nio, nioPosix, nioHTTP1]),
        .target(name: "FloorRoute", dependencies: ["FloorServer", hummingbird, nio, nioPosix]),
        // NIO's HTTP/1 pipeline and a handler that answers in `channelRead`: no task, no router.
        .executableTarget(name: "floor-nio", dependencies: ["FloorServer", nio, nioHTTP1]),
        // Hummingbird's `Application` with one route, Swift Concurrency on NIO's event loops as in
        // the services: a `NIOAsyncChannel` per connection, iterated by a task.
        .executableTarget(name: "floor-hummingbird", dependencies: ["FloorServer", "FloorRoute", hummingbird]),
        // Hummingbird's router behind a NIO handler that starts a task per request (as the RPC
        // server does) instead of Hummingbird's server.
        .executableTarget(
            name: "floor-router",
            dependencies: [
                "FloorServer", "FloorRoute", hummingbird, nio, nioHTTP1,
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
    ]
)
