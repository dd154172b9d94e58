import Gateway
import ServiceKit

await ServiceMain.run(name: GatewayApp.name, commonConfiguration: GatewayApp.commonConfiguration, start: GatewayApp.start)
