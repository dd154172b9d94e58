import ServiceLaunch

// Runs the content-state of `latchkey-services` (the four services share one executable: LatchkeyService).
LatchkeyService.contentState.execLatchkeyServices(arguments: CommandLine.arguments)
