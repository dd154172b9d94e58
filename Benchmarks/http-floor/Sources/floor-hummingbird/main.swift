import FloorRoute
import FloorServer
import Hummingbird

let port = FloorServer.port()
let app = Application(router: FloorRoute.healthzRouter(), configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
