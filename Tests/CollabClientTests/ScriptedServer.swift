import CollabClient
import Foundation
import NIOCore
import Synchronization

/// A server the test scripts: every request the client sends is recorded and answered by `answer`,
/// in process (an ``InProcessExchange`` behind an `inprocess://` base URL). For the client's own logic,
/// without MockCollab.
final class ScriptedServer: InProcessExchange {
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [(String, String)]
        var body: Data

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    typealias Answer = @Sendable (Request) -> HTTPTransport.RawResponse

    private let answer: Answer
    private let recorded = Mutex<[Request]>([])
    private let registeredURL = Mutex("")
    /// The base URL that reaches this server.
    var baseURL: String { registeredURL.withLock { $0 } }

    init(_ answer: @escaping Answer) {
        self.answer = answer
    }

    /// Registers a server for the body and forgets it afterwards.
    static func with<T>(_ answer: @escaping Answer, _ body: (ScriptedServer) async throws -> T) async throws -> T {
        let server = ScriptedServer(answer)
        let url = InProcessExchanges.register(server)
        server.registeredURL.withLock { $0 = url }
        defer { InProcessExchanges.unregister(server.baseURL) }
        return try await body(server)
    }

    var requests: [Request] { recorded.withLock { $0 } }

    func exchange(method: String, uri: String, headers: [(String, String)], body: ByteBuffer?) async throws -> HTTPTransport.RawResponse {
        let request = Request(method: method, uri: uri, headers: headers, body: body.map { Data($0.readableBytesView) } ?? Data())
        recorded.withLock { $0.append(request) }
        return answer(request)
    }

    /// A JSON answer.
    static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> HTTPTransport.RawResponse {
        HTTPTransport.RawResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }

    /// A JSON answer of an encodable value.
    static func json(_ status: Int, _ value: some Encodable) -> HTTPTransport.RawResponse {
        HTTPTransport.RawResponse(status: status, headers: [("Content-Type", "application/json")], body: (try? JSONEncoder().encode(value)) ?? Data())
    }
}
