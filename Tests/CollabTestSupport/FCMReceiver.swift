import Foundation
import NIOFoundationCompat
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A stand-in for Google's OAuth token endpoint and the FCM HTTP v1 API, over real HTTP.
///
/// `POST /token` checks the JWT-bearer grant and answers an access token; `POST
/// /v1/projects/<project>/messages:send` checks the bearer token and records the message. Tokens in
/// `unregistered` answer 404 UNREGISTERED.
package final class FCMReceiver: Sendable {
    package struct Received: Sendable {
        package var project: String
        package var message: [String: String]
        package var token: String
        package var authorization: String
    }

    private let server: LoopbackHTTPServer
    package var port: Int { server.port }

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    /// - Parameter expiresIn: The `expires_in` of the access tokens it hands out, in seconds.
    package init(expiresIn: Int64 = 3600) async throws {
        let router = Router()
        let box = Boxes()
        router.post("token") { request, _ -> Response in
            let body = String(buffer: try await request.body.collect(upTo: 64 * 1024))
            guard body.contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"),
                let assertion = body.split(separator: "&").first(where: { $0.hasPrefix("assertion=") })
            else {
                return Response(status: .badRequest)
            }
            box.assertions.append(String(assertion.dropFirst("assertion=".count)))
            let json = #"{"access_token":"fcm-access-token","expires_in":\#(expiresIn),"token_type":"Bearer"}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        router.post("v1/projects/:project/:action") { request, context -> Response in
            guard request.headers[.authorization] == "Bearer fcm-access-token" else { return Response(status: .unauthorized) }
            let data = Data(buffer: try await request.body.collect(upTo: 64 * 1024))
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let message = object["message"] as? [String: Any],
                let token = message["token"] as? String, let fields = message["data"] as? [String: String]
            else {
                return Response(status: .badRequest)
            }
            if box.isUnregistered(token) {
                let json =
                    #"{"error":{"code":404,"status":"NOT_FOUND","details":"#
                    + #"[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
                return Response(status: .notFound, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
            }
            box.messages.append(
                Received(
                    project: context.parameters.get("project") ?? "", message: fields, token: token,
                    authorization: request.headers[.authorization] ?? ""))
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"name":"projects/p/messages/1"}"#)))
        }
        server = await LoopbackHTTPServer(router, label: "fcm-receiver")
        self.boxes = box
    }

    private let boxes: Boxes

    package var all: [Received] { boxes.messages.all }
    package var assertionsSeen: [String] { boxes.assertions.all }
    package func unregister(_ token: String) { boxes.unregister(token) }

    package func stop() async throws {
        try await server.stop()
    }

    final class Boxes: Sendable {
        let messages = ListBox<Received>()
        let assertions = ListBox<String>()
        private let gone = Mutex<Set<String>>([])
        package func unregister(_ token: String) { gone.withLock { _ = $0.insert(token) } }
        func isUnregistered(_ token: String) -> Bool { gone.withLock { $0.contains(token) } }
    }
}
