import AsyncHTTPClient
public import CollabWire
public import Foundation
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Synchronization

/// A downloaded file, or the part of it a range asked for.
public struct DownloadedFile: Sendable {
    /// 200 for the whole file, 206 for a range.
    public var status: Int
    /// The file's sniffed type (`Content-Type`).
    public var contentType: String?
    /// `attachment` with the file's name (`Content-Disposition`).
    public var contentDisposition: String?
    /// The strong ETag (the SHA-256 in quotes).
    public var etag: String?
    /// `bytes a-b/size` for a range.
    public var contentRange: String?
    /// The bytes (in memory), or `nil` when they were written to a file.
    public var data: Data?
    /// How many bytes arrived.
    public var byteCount: Int64
}

extension HTTPTransport {
    /// A request with this transport's credentials and cookies (TLS pins checked first); every request
    /// the transport sends starts here.
    func authorizedRequest(_ method: String, _ path: String, query: [(String, String)]) async throws(CollabClientError) -> HTTPClientRequest {
        var components = URLComponents()
        components.queryItems = query.isEmpty ? nil : query.map { URLQueryItem(name: $0.0, value: $0.1) }
        let queryString = components.percentEncodedQuery.map { "?" + $0.replacingOccurrences(of: "+", with: "%2B") } ?? ""
        var request = HTTPClientRequest(url: baseURL + path + queryString)
        if let tls {
            try await tls.verifyPins(url: baseURL)
            request.tlsConfiguration = tls.configuration
        }
        request.method = HTTPMethod(rawValue: method)
        let (credentials, cookie, customCookies) = state.withLock { ($0.credentials, $0.sessionCookie, $0.customCookies) }
        switch credentials {
        case .none: break
        case .basic(let username, let password):
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
        case .bearer(let token):
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        var cookies = customCookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if let cookie { cookies.append("\(webAPISessionCookieName)=\(cookie)") }
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.joined(separator: "; ")) }
        return request
    }

    /// Streams `body` (`length` bytes) to `path` as a raw upload and decodes the FILE message the
    /// server answers with. A refusal throws with the server's typed error type in brackets at the
    /// start of the message (`[FILE_TYPE_NOT_ALLOWED] …`).
    public func uploadFile<Body: AsyncSequence & Sendable>(
        _ path: String, name: String, contentType: String?, length: Int64, body: Body, query: [(String, String)] = []
    ) async throws(CollabClientError) -> MessageView where Body.Element == ByteBuffer {
        try await uploadFile(path, name: name, contentType: contentType, body: .stream(body, length: .known(length)), query: query)
    }

    /// Uploads bytes held in memory (sent in one write).
    public func uploadFile(
        _ path: String, name: String, contentType: String?, data: Data, query: [(String, String)] = []
    ) async throws(CollabClientError) -> MessageView {
        try await uploadFile(path, name: name, contentType: contentType, body: .bytes(ByteBuffer(data: data)), query: query)
    }

    private func uploadFile(
        _ path: String, name: String, contentType: String?, body: HTTPClientRequest.Body, query: [(String, String)]
    ) async throws(CollabClientError) -> MessageView {
        var request = try await authorizedRequest("POST", path, query: [("name", name)] + query)
        request.headers.add(name: "Content-Type", value: contentType ?? "application/octet-stream")
        request.body = body
        let status: Int
        let buffer: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            buffer = try await response.body.collect(upTo: 1024 * 1024)
        } catch {
            throw CollabClientError(code: .transport, status: nil, message: "POST \(path) failed: \(error)")
        }
        try Self.checkTyped(status: status, body: Data(buffer: buffer))
        do {
            return try JSONDecoder().decode(MessageView.self, from: Data(buffer: buffer))
        } catch {
            throw CollabClientError(code: .decoding, status: status, message: "cannot decode the answer to POST \(path): \(error)")
        }
    }

    /// Downloads `path`, into memory (at most `maxBytes`) or streamed into `destination`.
    public func downloadFile(
        _ path: String, range: ClosedRange<Int64>? = nil, ifNoneMatch: String? = nil, to destination: URL? = nil, maxBytes: Int = 64 * 1024 * 1024
    ) async throws(CollabClientError) -> DownloadedFile {
        var request = try await authorizedRequest("GET", path, query: [])
        if let range { request.headers.add(name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound)") }
        if let ifNoneMatch { request.headers.add(name: "If-None-Match", value: ifNoneMatch) }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let status = Int(response.status.code)
            var result = DownloadedFile(
                status: status, contentType: response.headers.first(name: "content-type"),
                contentDisposition: response.headers.first(name: "content-disposition"), etag: response.headers.first(name: "etag"),
                contentRange: response.headers.first(name: "content-range"), data: nil, byteCount: 0
            )
            guard (200..<300).contains(status), let destination else {
                let buffer = try await response.body.collect(upTo: maxBytes)
                try Self.checkTyped(status: status, body: Data(buffer: buffer))
                result.data = Data(buffer: buffer)
                result.byteCount = Int64(buffer.readableBytes)
                return result
            }
            _ = FileManager.default.createFile(atPath: destination.path, contents: nil)  // opening it below reports a failure
            let handle = try FileHandle(forWritingTo: destination)
            defer { try? handle.close() }
            for try await chunk in response.body {
                try handle.write(contentsOf: Data(buffer: chunk))
                result.byteCount += Int64(chunk.readableBytes)
            }
            return result
        } catch let error as CollabClientError {
            throw error
        } catch {
            throw CollabClientError(code: .transport, status: nil, message: "GET \(path) failed: \(error)")
        }
    }

    /// Throws for a non-2xx/3xx status, with the typed body's type in brackets.
    static func checkTyped(status: Int, body: Data) throws(CollabClientError) {
        guard !(200..<400).contains(status) else { return }
        if let typed = try? JSONDecoder().decode(APIErrorBody.self, from: body) {
            throw CollabClientError(code: .forStatus(status), status: status, message: "[\(typed.type)] \(typed.message)", type: typed.type)
        }
        try check(RawResponse(status: status, headers: [], body: body), method: "", path: "")
    }
}

/// Chunks of a local file, read as they are sent.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let url: URL
    var chunkSize = 64 * 1024

    struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        let chunkSize: Int
        mutating func next() async throws -> ByteBuffer? {
            guard let handle else { return nil }
            guard let data = try handle.read(upToCount: chunkSize), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            return ByteBuffer(data: data)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(handle: try? FileHandle(forReadingFrom: url), chunkSize: chunkSize)
    }
}

/// A local file's size, for the upload's `Content-Length`.
func fileSize(_ url: URL) throws(CollabClientError) -> Int64 {
    do {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    } catch {
        let reason = FileManager.default.fileExists(atPath: url.path) ? error.localizedDescription : "no such file"
        throw CollabClientError(code: .badRequest, status: nil, message: "cannot read \(url.path): \(reason)")
    }
}

extension AppClient {
    /// The files of a conversation (their FILE messages), oldest first.
    public func files(in conversationId: String) async throws(CollabClientError) -> [MessageView] {
        let list: FileList = try await transport.send("GET", "\(apiPrefix)/conversations/\(conversationId)/files")
        return list.files
    }

    /// Downloads a file: into memory, or streamed into `destination`; optionally one byte range.
    public func downloadFile(
        _ fileId: String, in conversationId: String, range: ClosedRange<Int64>? = nil, to destination: URL? = nil
    ) async throws(CollabClientError) -> DownloadedFile {
        try await transport.downloadFile("\(apiPrefix)/conversations/\(conversationId)/files/\(fileId)", range: range, to: destination)
    }
}

extension VisitorClient {
    /// Uploads a local file into a conversation, streamed from disk; the server sniffs its type and
    /// checks it against the file-manager restrictions.
    /// - Returns: The FILE message.
    public func uploadFile(
        _ url: URL, named name: String? = nil, contentType: String? = nil, in conversationId: String
    ) async throws(CollabClientError) -> MessageView {
        try await transport.uploadFile(
            "/mobile/v1/conversations/\(conversationId)/files", name: name ?? url.lastPathComponent, contentType: contentType,
            length: try fileSize(url), body: FileChunks(url: url)
        )
    }

    /// Uploads bytes held in memory.
    public func uploadFile(
        data: Data, named name: String, contentType: String? = nil, in conversationId: String
    ) async throws(CollabClientError) -> MessageView {
        try await transport.uploadFile(
            "/mobile/v1/conversations/\(conversationId)/files", name: name, contentType: contentType, data: data
        )
    }
}

extension AgentClient {
    /// Uploads a local file into a conversation the agent takes part in, streamed from disk.
    public func uploadFile(
        _ url: URL, named name: String? = nil, contentType: String? = nil, internal: Bool = false, in conversationId: String
    ) async throws(CollabClientError) -> MessageView {
        try await transport.uploadFile(
            "/agent/v1/conversations/\(conversationId)/files", name: name ?? url.lastPathComponent, contentType: contentType,
            length: try fileSize(url), body: FileChunks(url: url), query: `internal` ? [("internal", "true")] : []
        )
    }

    /// Uploads bytes held in memory.
    public func uploadFile(
        data: Data, named name: String, contentType: String? = nil, internal: Bool = false, in conversationId: String
    ) async throws(CollabClientError) -> MessageView {
        try await transport.uploadFile(
            "/agent/v1/conversations/\(conversationId)/files", name: name, contentType: contentType, data: data,
            query: `internal` ? [("internal", "true")] : []
        )
    }
}
