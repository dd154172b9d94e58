import ServiceLaunch

// Runs the tokens of `latchkey-services` (the four services share one executable: LatchkeyService).
LatchkeyService.tokens.execLatchkeyServices(arguments: CommandLine.arguments)
