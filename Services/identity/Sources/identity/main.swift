import IdentityService
import ServiceKit

await ServiceMain.run(name: IdentityApp.name, commonConfiguration: IdentityApp.commonConfiguration, start: IdentityApp.start)
