import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import ServiceLaunch
import ServiceLifecycle
import ServiceProtocol
import Synchronization
import UnixSignals

/// The start of every executable: reads the configuration (a bad variable stops the process
/// with one line naming it and exit status 2), sets up logging and metrics, then runs the services in a
/// `ServiceGroup` that drains on SIGTERM or SIGINT. A signal that comes while the services are
/// still starting (waiting for Postgres, migrating) stops the process there, with exit status 0:
/// nothing has been served, and the start's statements roll back with their connections.
public enum ServiceMain {
    /// What a service's library hands back: its long-lived services, in start order.
    public typealias Start = @Sendable (_ env: EnvironmentReader, _ logger: Logger) async throws -> [any Service]

    /// `eventLoops`: the share of the CPUs the process's event loops take unless
    /// `EVENT_LOOP_THREADS` says.
    public static func run(
        name: String, eventLoops: EventLoops.Share = .half, commonConfiguration: (EnvironmentReader) throws -> CommonConfiguration,
        start: Start
    ) async -> Never {
        let env = EnvironmentReader()
        do {
            try EventLoops.install(env, share: eventLoops)
        } catch {
            fail(name, error)
        }
        let common: CommonConfiguration
        do {
            common = try commonConfiguration(env)
        } catch {
            fail(name, error)
        }
        LoggingSetup.bootstrap(level: common.logLevel, format: common.logFormat)
        MetricsSetup.bootstrap()
        var logger = Logger(label: name)
        logger.logLevel = common.logLevel
        logTuning(logger: logger)
        if common.environment == .development, env.optional("SERVICE_TOKEN") == nil {
            logger.warning("SERVICE_TOKEN is not set: using the development token")
        }
        // Trapped before anything starts: without a handler, a signal during the start would kill
        // the process (an orchestrator stopping a pod that is still waiting for Postgres).
        let group = RunningGroup()
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        Task {
            for await signal in signals {
                if let group = group.current.withLock({ $0 }) {
                    logger.info("Draining", metadata: ["signal": "\(signal)"])
                    await group.triggerGracefulShutdown()
                } else {
                    logger.info("Stopped while starting", metadata: ["signal": "\(signal)"])
                    exit(0)
                }
            }
        }
        do {
            // And in every process, memory given back when it goes quiet: the start's pages, free heap.
            let services = try await start(env, logger) + [MemoryTrimmer(logger: logger)]
            let serviceGroup = ServiceGroup(
                configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
            // A signal from here on drains the group (remembered if it comes before `run`).
            group.current.withLock { $0 = serviceGroup }
            // Child tasks inherit the preference: every request and call of the services.
            try await withTaskExecutorPreference(EventLoopTaskExecutor.shared) {
                try await serviceGroup.run()
            }
            logger.info("Stopped")
            exit(0)
        } catch let error as ConfigurationError {
            fail(name, error)
        } catch {
            logger.critical("Could not start", metadata: ["error": "\(error)"])
            exit(1)
        }
    }

    private static func fail(_ name: String, _ error: any Error) -> Never {
        StandardError.write("\(name): configuration error: \(error)\n")
        exit(2)
    }

    /// The process tuning this service started with (ServiceLaunch's `LaunchTuning` decides it
    /// in the launcher; docs/deploy.md, "Tuning"), in one line at start.
    static func logTuning(logger: Logger) {
        var metadata: Logger.Metadata = [:]
        for (key, value) in LaunchTuning.startupMetadata(environment: ProcessInfo.processInfo.environment) {
            metadata[key] = .string(value)
        }
        logger.info("Process tuning", metadata: metadata)
    }
}

/// The service group once the services started, for the signal watcher: a lock, not an actor,
/// so that the watcher reads it without a hop and the start sets it synchronously.
private final class RunningGroup: Sendable {
    let current = Mutex<ServiceGroup?>(nil)
}
