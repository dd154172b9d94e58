import ContentStateService
import ServiceKit

await ServiceMain.run(name: ContentStateApp.name, commonConfiguration: ContentStateApp.commonConfiguration, start: ContentStateApp.start)
