import ServiceKit
import TokenService

await ServiceMain.run(name: TokensApp.name, commonConfiguration: TokensApp.commonConfiguration, start: TokensApp.start)
