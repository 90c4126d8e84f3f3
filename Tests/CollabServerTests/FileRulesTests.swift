import CollabCore
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOFoundationCompat
import Testing

@testable import CollabServer

/// Bad input and isolation for files, in process (HummingbirdTesting's router mode): every row answers
/// its typed 4xx and changes nothing — no message, no stored byte.
@Suite("File rules")
struct FileRulesTests {
    /// The callers and the conversation a table runs against.
    struct Setup {
        var visitorToken: String
        var agentToken: String
        var otherAgentToken: String
        var strangerToken: String
        var otherAccountVisitorToken: String
        var conversationId: String
        var fileId: String
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var method: String
        /// `{c}` is the conversation id, `{f}` a stored file's id.
        var path: String
        var caller: Caller
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        var status: Int
        var type: String?
        var description: String { name }
    }

    enum Caller: Sendable {
        case visitor, agent, otherAgent, stranger, otherAccountVisitor, otherAdmin, agentBasic, anonymous
    }

    static let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46] + [UInt8](repeating: 1, count: 60)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 60)

    static let badInputRows: [Row] = [
        Row(name: "no name", method: "POST", path: "/mobile/v1/conversations/{c}/files", caller: .visitor, body: png, status: 400,
            type: "BAD_REQUEST"),
        Row(name: "empty name", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=", caller: .visitor, body: png, status: 400,
            type: "BAD_REQUEST"),
        Row(name: "a path as name", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=..%2Fetc%2Fpasswd", caller: .visitor, body: png,
            status: 400),
        Row(name: "a backslash", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=a%5Cb.png", caller: .visitor, body: png, status: 400),
        Row(name: "a control character", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=a%0Ab.png", caller: .visitor, body: png,
            status: 400),
        Row(name: "dot dot", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=..", caller: .visitor, body: png, status: 400),
        Row(name: "a long name", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=\(String(repeating: "a", count: 300)).png",
            caller: .visitor, body: png, status: 400),
        Row(name: "no body", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=a.png", caller: .visitor, status: 400,
            type: "FILE_EMPTY"),
        Row(name: "an executable called a picture", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=a.png", caller: .visitor,
            body: elf, status: 415, type: "FILE_TYPE_MISMATCH"),
        Row(name: "an executable", method: "POST", path: "/agent/v1/conversations/{c}/files?name=run", caller: .agent, body: elf, status: 415,
            type: "FILE_TYPE_NOT_ALLOWED"),
        Row(name: "a blocked extension", method: "POST", path: "/agent/v1/conversations/{c}/files?name=a.exe", caller: .agent, body: png, status: 415,
            type: "FILE_TYPE_NOT_ALLOWED"),
        // Windows saves these as `run.bat` (issue 25, item 12).
        Row(name: "a blocked extension and a trailing dot", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=run.bat.",
            caller: .visitor, body: png, status: 415, type: "FILE_TYPE_NOT_ALLOWED"),
        Row(name: "a blocked extension and a trailing space", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=run.bat%20",
            caller: .visitor, body: png, status: 415, type: "FILE_TYPE_NOT_ALLOWED"),
        Row(name: "a blocked extension, spaces and dots", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=run.bat%20%20..",
            caller: .visitor, body: png, status: 415, type: "FILE_TYPE_NOT_ALLOWED"),
        Row(name: "a blocked extension in capitals and a dot", method: "POST", path: "/agent/v1/conversations/{c}/files?name=RUN.BaT.",
            caller: .agent, body: png, status: 415, type: "FILE_TYPE_NOT_ALLOWED"),
        Row(name: "a name of dots and spaces only", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=.%20.", caller: .visitor,
            body: png, status: 400, type: "BAD_REQUEST"),
        // (A declared size over the maximum is refused before reading; router mode sets its own Content-Length,
        // so FileTransferTests.refusals covers it over a socket.)
        Row(name: "internal not a boolean", method: "POST", path: "/agent/v1/conversations/{c}/files?name=a.png&internal=perhaps", caller: .agent,
            body: png, status: 400),
        Row(name: "an unknown conversation", method: "POST", path: "/mobile/v1/conversations/nope/files?name=a.png", caller: .visitor, body: png,
            status: 404),
        Row(name: "no client", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=a.png", caller: .anonymous, body: png, status: 401),
        Row(name: "an unknown file", method: "GET", path: "/mobile/v1/conversations/{c}/files/nope", caller: .visitor, status: 404),
        Row(name: "a file of another conversation id", method: "GET", path: "/mobile/v1/conversations/nope/files/{f}", caller: .visitor, status: 404),
        Row(name: "a range beyond the end", method: "GET", path: "/agent/v1/conversations/{c}/files/{f}", caller: .agent,
            headers: [("Range", "bytes=5000-")], status: 416),
        Row(name: "a malformed range", method: "GET", path: "/agent/v1/conversations/{c}/files/{f}", caller: .agent,
            headers: [("Range", "pages=1-2")], status: 416),
        Row(name: "a reversed range", method: "GET", path: "/agent/v1/conversations/{c}/files/{f}", caller: .agent, headers: [("Range", "bytes=9-2")],
            status: 416),
        Row(name: "an enormous range number", method: "GET", path: "/agent/v1/conversations/{c}/files/{f}", caller: .agent,
            headers: [("Range", "bytes=99999999999999999999999-")], status: 416),
    ]

    static let isolationRows: [Row] = [
        Row(name: "another visitor downloads", method: "GET", path: "/mobile/v1/conversations/{c}/files/{f}", caller: .stranger, status: 404),
        Row(name: "another visitor uploads", method: "POST", path: "/mobile/v1/conversations/{c}/files?name=a.png", caller: .stranger, body: png,
            status: 404),
        Row(name: "another visitor lists", method: "GET", path: "/mobile/v1/conversations/{c}/files", caller: .stranger, status: 404),
        Row(name: "another account's visitor downloads", method: "GET", path: "/mobile/v1/conversations/{c}/files/{f}", caller: .otherAccountVisitor,
            status: 404),
        Row(name: "a non-participant agent downloads", method: "GET", path: "/agent/v1/conversations/{c}/files/{f}", caller: .otherAgent,
            status: 404),
        Row(name: "a non-participant agent uploads", method: "POST", path: "/agent/v1/conversations/{c}/files?name=a.png", caller: .otherAgent,
            body: png, status: 404),
        Row(name: "another account's admin lists", method: "GET", path: "/app/rest/v4/conversations/{c}/getConversationFiles", caller: .otherAdmin,
            status: 404),
        Row(name: "another account's admin downloads", method: "GET", path: "/app/rest/v4/conversations/{c}/files/{f}/download", caller: .otherAdmin,
            status: 404),
        Row(name: "an agent lists through the Web API", method: "GET", path: "/app/rest/v4/conversations/{c}/getConversationFiles",
            caller: .agentBasic, status: 403),
        Row(name: "anonymous downloads through the Web API", method: "GET", path: "/app/rest/v4/conversations/{c}/files/{f}/download",
            caller: .anonymous, status: 401),
    ]

    @Test("bad input: a typed 4xx, nothing stored", .serialized, arguments: badInputRows)
    func badInput(row: Row) async throws { try await run(row) }

    @Test("isolation: other visitors, agents and accounts never reach a conversation's files", .serialized, arguments: isolationRows)
    func isolation(row: Row) async throws { try await run(row) }

    func run(_ row: Row) async throws {
        let server = try await MockCollabServer(
            configuration: ServerConfiguration(port: 0, storage: .memory, seed: fileSeed, passwordHashCost: 4), logger: TestServer.logger
        )
        try await server.buildApplication().test(.router) { client in
            let setup = try await Self.prepare(client)
            let before = try server.environment.stats(accountId: nil, journalEntries: 0)
            let storedBefore = server.fileBytesStored
            var headers = HTTPFields()
            switch row.caller {
            case .visitor: headers[.authorization] = "Bearer \(setup.visitorToken)"
            case .agent: headers[.authorization] = "Bearer \(setup.agentToken)"
            case .otherAgent: headers[.authorization] = "Bearer \(setup.otherAgentToken)"
            case .stranger: headers[.authorization] = "Bearer \(setup.strangerToken)"
            case .otherAccountVisitor: headers[.authorization] = "Bearer \(setup.otherAccountVisitorToken)"
            case .otherAdmin: headers[.authorization] = "Basic " + Data("admin-o:pw".utf8).base64EncodedString()
            case .agentBasic: headers[.authorization] = "Basic " + Data("agent-a:pw".utf8).base64EncodedString()
            case .anonymous: break
            }
            for (name, value) in row.headers { headers[HTTPField.Name(name)!] = value }
            let path = row.path.replacingOccurrences(of: "{c}", with: setup.conversationId).replacingOccurrences(of: "{f}", with: setup.fileId)
            let response = try await client.execute(
                uri: path, method: HTTPRequest.Method(row.method)!, headers: headers, body: row.body.isEmpty ? nil : ByteBuffer(bytes: row.body)
            )
            #expect(Int(response.status.code) == row.status, "\(row.name): \(String(buffer: response.body))")
            if let type = row.type {
                let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(buffer: response.body))
                #expect(body.type == type, "\(row.name)")
            }
            #expect(try server.environment.stats(accountId: nil, journalEntries: 0) == before, "\(row.name) changed state")
            #expect(server.fileBytesStored == storedBefore, "\(row.name) stored bytes")
        }
    }

    /// A visitor and agent-a in an active conversation with one stored file; agent-b, a second visitor
    /// and a visitor of the other account beside them.
    static func prepare(_ client: some TestClientProtocol) async throws -> Setup {
        func json<T: Decodable>(
            _ type: T.Type, _ method: HTTPRequest.Method, _ uri: String, token: String? = nil, body: some Encodable
        ) async throws -> T {
            var headers: HTTPFields = [.contentType: "application/json"]
            if let token { headers[.authorization] = "Bearer \(token)" }
            let response = try await client.execute(
                uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: try JSONEncoder().encode(body)))
            return try JSONDecoder().decode(T.self, from: Data(buffer: response.body))
        }
        func start(_ key: String, _ device: String, area: String? = "area-a") async throws -> String {
            try await json(
                ClientStartResponse.self, .post, "/mobile/v1/clients",
                body: ClientStartRequest(
                    apiKey: key, accessToken: nil, deviceId: device, device: .init(os: "iOS"), namedArea: area, deviceSecret: nil)
            ).token
        }
        func login(_ username: String) async throws -> String {
            try await json(AgentLoginResponse.self, .post, "/agent/v1/login", body: AgentLoginRequest(username: username, password: "pw")).token
        }
        let visitor = try await start("files-key", "rules-phone")
        let conversation = try await json(
            ConversationView.self, .post, "/mobile/v1/conversations", token: visitor, body: StartConversationRequest(topic: "t"))
        let agent = try await login("agent-a")
        _ = try await client.execute(
            uri: "/agent/v1/conversations/\(conversation.id)/accept", method: .post, headers: [.authorization: "Bearer \(agent)"])
        let uploaded = try await client.execute(
            uri: "/mobile/v1/conversations/\(conversation.id)/files?name=kept.png", method: .post, headers: [.authorization: "Bearer \(visitor)"],
            body: ByteBuffer(bytes: png)
        )
        let message = try JSONDecoder().decode(MessageView.self, from: Data(buffer: uploaded.body))
        return Setup(
            visitorToken: visitor, agentToken: agent, otherAgentToken: try await login("agent-b"),
            strangerToken: try await start("files-key", "stranger"), otherAccountVisitorToken: try await start("other-key", "other-phone", area: nil),
            conversationId: conversation.id, fileId: try #require(message.file?.id)
        )
    }
}
