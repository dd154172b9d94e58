import ServiceLaunch

// Runs the identity of `latchkey-services` (the four services share one executable: LatchkeyService).
LatchkeyService.identity.execLatchkeyServices(arguments: CommandLine.arguments)
