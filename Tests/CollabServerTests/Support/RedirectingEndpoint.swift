import Foundation
import Hummingbird
import Synchronization

/// A real HTTP endpoint that answers every POST to `/hooks` with a redirect to `location`, counting
/// the requests it got.
final class RedirectingEndpoint: Sendable {
    private let server: LoopbackHTTPServer
    private let box: HitBox
    var port: Int { server.port }

    /// The endpoint's URL under `host` (which must resolve to 127.0.0.1).
    func url(host: String = "127.0.0.1") -> String { "http://\(host):\(port)/hooks" }

    /// How many requests arrived.
    var count: Int { box.count }

    init(location: String, status: HTTPResponse.Status = .temporaryRedirect) async throws {
        let router = Router()
        let box = HitBox()
        router.post("hooks") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            box.add()
            return Response(status: status, headers: [.location: location])
        }
        self.box = box
        self.server = await LoopbackHTTPServer(router, label: "redirecting-endpoint")
    }

    func stop() async throws {
        try await server.stop()
    }
}

final class HitBox: Sendable {
    private let hits = Mutex(0)
    func add() { hits.withLock { $0 += 1 } }
    var count: Int { hits.withLock { $0 } }
}
