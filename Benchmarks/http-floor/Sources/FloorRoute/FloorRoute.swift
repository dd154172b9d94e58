import FloorServer
import Hummingbird
import NIOCore
import NIOPosix

/// The Hummingbird side of the floor servers: Swift Concurrency on NIO's event loops, as in the
/// services (ServiceKit's `EventLoops`), and a router with the one route.
public enum FloorRoute {
    public static func healthzRouter() -> Router<BasicRequestContext> {
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        let router = Router()
        router.get("healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: FloorServer.body)))
        }
        return router
    }
}
