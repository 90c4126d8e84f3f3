public import CollabCore
import CollabWire
public import Hummingbird
import HTTPTypes

/// Files in conversations on every surface: uploads (`POST …/conversations/{id}/files?name=`, the raw
/// bytes as the body), lists and downloads on the mobile and agent APIs (`registerMobile`,
/// `registerAgent`: an agent's uploads may be internal), and the Web API's
/// `conversations/{id}/getConversationFiles` with its `WEB_API` download links.
struct FileRoutes: ConversationCallerRoutes {
    let environment: CollabEnvironment
    /// Interceptors and the webhooks that announce their rejections; `nil` reviews nothing.
    let review: FileReview?

    func register(on group: RouterGroup<CollabRequestContext>, resolve: @escaping ConversationCaller.Resolver) {
        let env = environment
        let review = self.review
        group.post("conversations/:id/files") { request, context in
            let caller = try resolve(context)
            let id = try context.pathParameter("id")
            var isInternal = false
            // A visitor's files are never internal: its `internal` is not read.
            if caller.seesInternal, let text = request.query("internal") {
                guard let value = Bool(text) else { throw CollabError.badRequest("internal must be true or false") }
                isInternal = value
            }
            return try await env.upload(
                request, conversationId: id, personId: caller.personId, client: caller.client, isInternal: isInternal, principal: context.principal,
                review: review
            )
        }
        group.get("conversations/:id/files") { _, context in
            let caller = try resolve(context)
            let id = try context.pathParameter("id")
            let list = try env.read(context.principal) { state throws(CollabError) in
                _ = try caller.conversation(id, in: state)
                return FileList(files: state.fileMessages(of: id, includeInternal: caller.seesInternal).map(MessageView.init))
            }
            return JSONBody.response(list)
        }
        group.get("conversations/:id/files/:fileId") { request, context in
            _ = try resolve(context)
            return try await env.download(request, context: context)
        }
    }

    /// The Web API's `conversations/{id}/getConversationFiles` and its download links, under `prefix`.
    func registerWebAPI(on conversations: RouterGroup<CollabRequestContext>, prefix: String) {
        let env = environment
        conversations.operation(.get, ":conversationId/getConversationFiles", role: .admin) { _, context in
            let id = try context.pathParameter("conversationId")
            let base = env.publicURL.base
            let list = try env.read(context.principal) { state throws(CollabError) in
                _ = try state.conversation(id, for: context.principal)
                let files = state.fileMessages(of: id, includeInternal: true)
                return WebConversationFileList(items: files.map { state.webFile($0, baseURL: base, prefix: prefix) })
            }
            return JSONBody.response(list)
        }
        conversations.operation(.get, ":conversationId/files/:fileId/download", role: .webuser) { request, context in
            try await env.download(request, context: context)
        }
    }
}

extension CollabEnvironment {
    /// Streams an upload into storage within its bounds, checks it, makes it durable, then commits the
    /// FILE message. A refused or failed upload leaves nothing behind.
    func upload(
        _ request: Request, conversationId: String, personId: String, client: ClientSession?, isInternal: Bool, principal: Principal,
        review: FileReview? = nil
    ) async throws -> Response {
        let serverMax = configuration.files.maxFileSize
        do {
            let (name, restrictions) = try await beforeReading(request) { () throws -> (String, FileRestrictions) in
                let name = try FileAttachment.checkName(request.query("name"))
                let restrictions = try read(principal) { state throws(CollabError) in
                    if let client { _ = try state.visitorConversation(conversationId, session: client) }
                    try state.checkCanUpload(conversationId, personId: personId, isInternal: isInternal)
                    return try state.fileRestrictions(conversationId: conversationId, client: client, serverMaxFileSize: serverMax)
                }
                try restrictions.checkName(name)
                if let declared = request.headers[.contentLength].flatMap({ Int64($0) }) { try restrictions.checkSize(declared) }
                return (name, restrictions)
            }
            let staged = try await files.stage(request.body, limit: restrictions.maxFileSize, accountId: principal.accountId ?? "")
            let type = ContentSniffer.effectiveType(sniffed: ContentSniffer.sniff(staged.head), declared: request.headers[.contentType])
            do {
                try restrictions.checkContent(name: name, type: type)
            } catch {
                await files.discard(staged)
                throw error
            }
            let file = FileAttachment(id: ids.make(), name: name, mimeType: type, size: staged.size, sha256: staged.sha256)
            try await files.commit(staged, accountId: principal.accountId ?? "", conversationId: conversationId, fileId: file.id)
            if let review {
                try await self.review(
                    file, conversationId: conversationId, personId: personId, principal: principal,
                    timeoutMillis: restrictions.interceptorTimeoutMillis, baseURL: publicURL.base, with: review
                )
            }
            let message: ConversationMessage
            do {
                message = try await write(principal) { state, changes, op throws(CollabError) in
                    try state.postFileMessage(
                        conversationId, senderPersonId: personId, file: file, isInternal: isInternal, context: op, changes: &changes)
                }
            } catch {
                await files.remove(accountId: principal.accountId ?? "", conversationId: conversationId, fileId: file.id)
                throw error
            }
            return JSONBody.response(MessageView(message), status: .created)
        } catch let refusal as FileRefusal {
            return refusal.response
        }
    }

    /// Runs the checks made before any byte is read. When one refuses, a small body (at most 1 MiB
    /// declared) is read and dropped first, so a client that sends its whole body before it reads the
    /// answer gets the answer rather than a reset; a larger one is answered at once.
    private func beforeReading<T>(_ request: Request, _ checks: () async throws -> T) async throws -> T {
        do {
            return try await checks()
        } catch {
            if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared <= 1 << 20 {
                var read = 0
                do {
                    for try await chunk in request.body {
                        read += chunk.readableBytes
                        if read > 1 << 20 { break }
                    }
                } catch {}
            }
            throw error
        }
    }

    /// A download through any surface: the caller must take part in the conversation or be an admin
    /// of its account; everyone else gets 404.
    func download(_ request: Request, context: CollabRequestContext) async throws -> Response {
        // The Web API names the parameter as its spec does, the mobile and agent APIs `id`.
        let conversationId = try context.parameters.get("conversationId") ?? context.pathParameter("id")
        let fileId = try context.pathParameter("fileId")
        let message = try read(context.principal) { state throws(CollabError) in
            try state.downloadableFile(fileId, conversationId: conversationId, for: context.principal)
        }
        let file = message.file!  // downloadableFile only returns FILE messages
        let location = files.location(accountId: message.accountId, conversationId: conversationId, fileId: fileId)
        return try await FileDownload.response(for: file, location: location, request: request, context: context)
    }
}

extension AccountState {
    /// `ConversationFileData` for a FILE message, with its `WEB_API` and `AGENT_DESK` download links.
    func webFile(_ message: ConversationMessage, baseURL: String, prefix: String) -> WebConversationFile {
        let file = message.file!  // only FILE messages reach here
        let path = "conversations/\(message.conversationId)/files/\(file.id)"
        return WebConversationFile(
            conversationId: message.conversationId, ownerPersonId: message.senderPersonId, name: file.name, mimeType: file.mimeType,
            source: fileSource(message.senderPersonId), fileStoreId: file.id, totalSize: file.size,
            downloadLinks: [
                WebDownloadLink(linkType: "WEB_API", url: "\(baseURL)/\(prefix)/\(path)/download"),
                WebDownloadLink(linkType: "AGENT_DESK", url: "\(baseURL)/agent/v1/\(path)"),
            ],
            creationTimestamp: message.serverTimestamp
        )
    }
}

extension FileRefusal: HTTPResponseError {
    /// The HTTP status of a refusal.
    public var status: HTTPResponse.Status {
        switch code {
        case .typeNotAllowed, .typeMismatch: .unsupportedMediaType
        case .tooLarge: .contentTooLarge
        case .quotaExceeded: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .rejected, .messageRejected: .forbidden
        case .empty: .badRequest
        case .busy: .tooManyRequests
        case .tooSlow: .requestTimeout
        }
    }

    /// The typed error body with the refusal's own type (uploads and messages are on the mobile and
    /// agent APIs), whatever surface throws it.
    public func response(from request: Request, context: some RequestContext) throws -> Response { response }

    /// The typed error body with the refusal's own type.
    var response: Response {
        var headers = HTTPFields()
        if code == .busy { headers[.retryAfter] = "1" }
        // The unread rest of a refused body is drained by the HTTP server after the answer (bounded by
        // the idle timeout), so clients that send the whole body before reading still get the answer.
        return JSONBody.response(APIErrorBody(type: code.rawValue, message: message, status: status.code), status: status, headers: headers)
    }
}
