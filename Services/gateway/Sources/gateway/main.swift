import ServiceLaunch

// Runs the gateway of `latchkey-services` (the four services share one executable: LatchkeyService).
LatchkeyService.gateway.execLatchkeyServices(arguments: CommandLine.arguments)
