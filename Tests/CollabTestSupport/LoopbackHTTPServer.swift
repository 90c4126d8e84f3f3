package import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird server on 127.0.0.1 and a free port, running `router` until ``stop()``: what the test
/// receivers (webhooks, bots, interceptors, FCM, redirects) stand on.
package final class LoopbackHTTPServer: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    /// The port the server listens on.
    package let port: Int

    /// Starts serving `router`; returns once the port is bound.
    package init(_ router: Router<BasicRequestContext>, label: String) async {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let portBox = PortBox()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portBox.set(channel.localAddress?.port ?? 0) }, logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        self.task = Task { try await group.run() }
        self.port = await portBox.wait()
    }

    /// Shuts the server down gracefully and waits for it.
    package func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
