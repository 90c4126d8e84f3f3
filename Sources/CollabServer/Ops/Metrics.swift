import Metrics
import Prometheus
import Synchronization

/// The process-wide Prometheus registry behind `/metrics`.
///
/// swift-metrics can be bootstrapped once per process; several servers in one process (tests) share
/// the registry.
enum MetricsBootstrap {
    private static let registryBox = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry, bootstrapping swift-metrics with it on first use.
    static var registry: PrometheusCollectorRegistry {
        registryBox.withLock { box in
            if let registry = box { return registry }
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            box = registry
            return registry
        }
    }
}
