import Foundation
import ServiceLaunch
import TestSupport
import Testing

/// The four services are one executable, `latchkey-services`; `gateway`, `identity`, `tokens`
/// and `content-state` run it under their own names (`LatchkeyService`).
@Suite(.timeLimit(.minutes(5))) struct OneExecutableTests {
    @Test func theServiceIsTheFirstArgumentOrTheNameItRunsUnder() {
        let named = LatchkeyService.requested(by: ["/opt/bin/latchkey-services", "tokens", "keygen", "ES256"])
        #expect(named?.service == .tokens && named?.arguments == ["keygen", "ES256"])
        let launched = LatchkeyService.requested(by: ["/opt/bin/content-state", "content-state"])
        #expect(launched?.service == .contentState && launched?.arguments == [])
        let linked = LatchkeyService.requested(by: ["tokens", "keygen"])
        #expect(linked?.service == .tokens && linked?.arguments == ["keygen"])
        #expect(LatchkeyService.requested(by: ["/usr/local/bin/gateway"])?.service == .gateway)
        #expect(LatchkeyService.requested(by: ["/opt/bin/latchkey-services"]) == nil)
        #expect(LatchkeyService.requested(by: ["/opt/bin/latchkey-services", "gate"]) == nil)
        #expect(LatchkeyService.requested(by: []) == nil)
    }

    @Test func withoutAServiceItSaysHowToNameOne() async throws {
        let process = try ServiceProcess("latchkey-services", environment: [:])
        #expect(await process.waitForExit(timeout: .seconds(60)) == 64)
        #expect(process.stderr == "usage: latchkey-services {gateway|identity|tokens|content-state} [arguments]\n")
    }

    /// The running process is the shared executable (the pid the launcher was started as),
    /// and runs as the service it was started as: it bears that service's name and logs
    /// under it.
    @Test(arguments: ["identity", "tokens", "content-state"])
    func eachServiceRunsAsTheSharedExecutable(_ name: String) async throws {
        let backend = try await BackendProcess.started(name, ["LOG_LEVEL": "info", "LOG_FORMAT": "text"])
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(backend.process.process.processIdentifier)/exe")
        #expect(executable.hasSuffix("/latchkey-services"))
        let comm = try String(contentsOfFile: "/proc/\(backend.process.process.processIdentifier)/comm", encoding: .utf8)
        #expect(comm == name + "\n")
        backend.process.terminate()
        #expect(await backend.process.waitForExit(timeout: .seconds(60)) == 0)
        #expect(backend.process.stdout.contains(" info \(name): [ServiceKit] Stopped\n"), "\(backend.process.stdout)")
    }

    /// A launcher without `latchkey-services` next to it says so and fails, rather than
    /// running anything else.
    @Test func aLauncherAloneFailsNamingTheSharedExecutable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let launcher = folder.appendingPathComponent("gateway")
        try FileManager.default.copyItem(at: ServiceProcess.buildDirectory.appendingPathComponent("gateway"), to: launcher)
        let process = Process()
        process.executableURL = launcher
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 127)
        #expect(output.hasPrefix("gateway: cannot run \(folder.path)/latchkey-services: No such file or directory"))
    }
}
