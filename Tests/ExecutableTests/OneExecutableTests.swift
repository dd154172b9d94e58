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

    /// The executable links FoundationEssentials, not the rest of Foundation: Foundation proper,
    /// its internationalization library and ICU's tables (about 8 MiB of resident code and 2 MiB
    /// of relocated tables across the four processes, docs/benchmarks.md) are never loaded. One
    /// module that imports `Foundation` instead brings them all back.
    @Test func theServicesLoadNoFullFoundationNorICU() async throws {
        let backend = try await BackendProcess.started("content-state")
        // /proc files say they are empty: read to the end, not the size they give.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(backend.process.process.processIdentifier)/maps"))
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        try file.close()
        backend.process.terminate()
        _ = await backend.process.waitForExit(timeout: .seconds(60))
        let libraries = Set(maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.firstIndex(of: "/") else { return nil }
            return line[path...].split(separator: "/").last.map(String.init)
        })
        // The test build links the Swift runtime as libraries: what is loaded is in the map.
        #expect(libraries.contains("libswiftCore.so") && libraries.contains("libFoundationEssentials.so"), "\(libraries.sorted())")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libFoundationNetworking.so"] {
            #expect(!libraries.contains(library), "\(library) is loaded")
        }
    }
}
