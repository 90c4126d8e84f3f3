import CollabStore
import CollabWire
import Prometheus
import Foundation
import Hummingbird
import NIOCore

extension Surface {
    /// The probes and documents at the root: they take no credentials (a probe or a scraper with a
    /// stale `Authorization` header still gets its answer), are never faulted, and answer from this
    /// replica alone.
    static let ops = Surface(faultName: nil, credentials: [], errors: .webAPI, readsClusterState: false)
}

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

    func register(on router: Router<CollabRequestContext>, stack: SurfaceStack) {
        let env = environment
        // At the root, so the rest of the root is not theirs to answer: other paths stay the router's 404.
        let routes = stack.routes(.ops, under: "", on: router)
        routes.get("healthz") { _, _ in
            JSONBody.response(["status": "ok", "version": MockCollabVersion.current])
        }
        routes.get("readyz") { _, _ in
            if let problem = await env.repository.storageProblem() {
                return ErrorBody.response(status: .serviceUnavailable, message: problem)
            }
            return JSONBody.response(["status": "ready"])
        }
        routes.get("metrics") { _, _ in
            let bytes = MetricsBootstrap.registry.emitToBuffer()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes))
            )
        }
        routes.get("openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: Self.openAPIDocument))
        }
    }
}
