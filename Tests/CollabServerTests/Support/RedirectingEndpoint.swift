import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A real HTTP endpoint that answers every POST to `/hooks` with a redirect to `location`, counting
/// the requests it got.
final class RedirectingEndpoint: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    private let box: HitBox
    let port: Int

    /// The endpoint's URL under `host` (which must resolve to 127.0.0.1).
    func url(host: String = "127.0.0.1") -> String { "http://\(host):\(port)/hooks" }

    /// How many requests arrived.
    var count: Int { box.count }

    init(location: String, status: HTTPResponse.Status = .temporaryRedirect) async throws {
        let router = Router()
        let portBox = PortBox()
        var logger = Logger(label: "redirecting-endpoint")
        logger.logLevel = .critical
        let box = HitBox()
        router.post("hooks") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            box.add()
            return Response(status: status, headers: [.location: location])
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portBox.set(channel.localAddress?.port ?? 0) }, logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        self.task = Task { try await group.run() }
        self.box = box
        self.port = await portBox.wait()
    }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

final class HitBox: Sendable {
    private let hits = Mutex(0)
    func add() { hits.withLock { $0 += 1 } }
    var count: Int { hits.withLock { $0 } }
}
