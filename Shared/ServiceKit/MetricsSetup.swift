import CoreMetrics
import NIOCore
import Prometheus
import Synchronization

/// The process's metrics: swift-metrics records into one Prometheus registry, which the
/// operations routes render at `/metrics`.
public enum MetricsSetup {
    /// The registry every metric of the process lands in once `bootstrap()` ran.
    static let registry = PrometheusCollectorRegistry()
    private static let bootstrapped = Atomic<Bool>(false)

    /// Histogram buckets for durations: half a millisecond to ten seconds.
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10),
    ]

    /// Makes swift-metrics record into `registry`. Only the first call in a process does
    /// anything; metric objects made before it stay no-ops, so call it before anything starts.
    public static func bootstrap() {
        guard !self.bootstrapped.exchange(true, ordering: .relaxed) else { return }
        var factory = PrometheusMetricsFactory(registry: self.registry)
        factory.defaultDurationHistogramBuckets = self.durationBuckets
        MetricsSystem.bootstrap(factory)
    }

    /// Every metric in the Prometheus text exposition format (version 0.0.4).
    static func exposition() -> ByteBuffer {
        ByteBuffer(bytes: self.registry.emitToBuffer())
    }
}
