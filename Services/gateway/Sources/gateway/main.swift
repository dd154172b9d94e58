import Gateway
import ServiceKit

await ServiceMain.run(
    name: GatewayApp.name, eventLoops: .all, commonConfiguration: GatewayApp.commonConfiguration, start: GatewayApp.start)
