import CollabStore
import CollabWire
import Prometheus
import Foundation
import Hummingbird
import NIOCore

/// Operational routes: liveness, readiness, Prometheus metrics and our own OpenAPI document.
struct OpsRoutes {
    let environment: CollabEnvironment

    /// The OpenAPI 3.1 document for every route that is not part of the vendor's Web API.
    static let openAPIDocument: ByteBuffer = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"), let data = try? Data(contentsOf: url) else {
            return ByteBuffer(string: "{}")
        }
        return ByteBuffer(bytes: data)
    }()

    func register(on router: Router<CollabRequestContext>) {
        let env = environment
        router.get("healthz") { _, _ in
            JSONBody.response(["status": "ok"])
        }
        router.get("readyz") { _, _ in
            if let problem = await env.repository.storageProblem() {
                return ErrorBody.response(status: .serviceUnavailable, message: problem)
            }
            return JSONBody.response(["status": "ready"])
        }
        router.get("metrics") { _, _ in
            let bytes = MetricsBootstrap.registry.emitToBuffer()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes))
            )
        }
        router.get("openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: Self.openAPIDocument))
        }
    }
}
