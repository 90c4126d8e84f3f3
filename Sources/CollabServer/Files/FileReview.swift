import CollabCore
import CollabStore
import CollabWire
import Foundation

/// What reviews an upload before its message is committed: the account's file-upload interceptors, then
/// the server's global ones, and the webhook dispatcher that announces a rejection (`file_upload_interceptor.file_rejected`).
struct FileReview: Sendable {
    let interception: FileInterception
    let webhooks: WebhookDispatcher
    /// Message interceptors see the FILE message too, after the file interceptors approved the file.
    let messages: MessageReview

    static let rejectedEvent = "file_upload_interceptor.file_rejected"
}

extension CollabEnvironment {
    /// Runs the interceptors that review `file`'s type, in order: the account's, then the global ones
    /// (the vendor's order: account interceptors apply first). The file is in storage already (the
    /// interceptors read it through their download link); a rejection removes it, fires the
    /// `file_upload_interceptor.file_rejected` webhook event and refuses the upload with 403 `FILE_REJECTED`.
    func review(
        _ file: FileAttachment, conversationId: String, personId: String, principal: Principal, timeoutMillis: Int, baseURL: String,
        with review: FileReview
    ) async throws {
        let accountId = principal.accountId ?? ""
        // One read for both kinds of interceptor; their type patterns run after it, off the account's lock.
        let (active, uploader, messageInterceptors, messageTimeout) = try read(principal) { state in
            (
                state.activeFileUploadInterceptors, state.persons[personId].map { WebPerson($0, expand: Expansion()) },
                state.messageInterceptors(reviewing: personId), MessageReview.timeoutMillis(state)
            )
        }
        let interceptors = active.filter { $0.reviews(file.mimeType) }
        let global = repository.directory.globalConfiguration.fileUploadInterceptors.reviewing(file.mimeType)
        let reviewers = interceptors.map { ($0, FileInterception.Reviewer.account) } + global.map { ($0, FileInterception.Reviewer.global) }
        for (interceptor, reviewer) in reviewers {
            let decision = await review.interception.review(
                file, accountId: accountId, conversationId: conversationId, uploader: uploader, interceptor: interceptor, reviewer: reviewer,
                baseURL: baseURL, now: clock.now(), timeout: .milliseconds(timeoutMillis)
            )
            guard case .rejected(let reason) = decision else { continue }
            await files.remove(accountId: accountId, conversationId: conversationId, fileId: file.id)
            var event = WebInterceptorFileRejectedEvent(
                FileReview.rejectedEvent, timestamp: clock.now(), accountId: accountId, WebInterceptorFileRejectedFields()
            )
            event.name = file.name
            event.mimeType = file.mimeType
            event.length = file.size
            event.interceptorId = interceptor.id
            event.source = "CONVERSATION"
            event.personId = personId
            event.conversationId = conversationId
            event.reason = reason
            announce(event, to: review.webhooks)
            throw FileRefusal(.rejected, "the file was rejected: \(reason)")
        }
        guard !messageInterceptors.isEmpty else { return }
        var message = WebTextMessage(
            id: "", conversationId: conversationId, accountId: accountId, senderPerson: uploader, timestamp: clock.now(), text: file.name,
            internal: false
        )
        message.describe(file)
        do {
            try await review.messages.ask(messageInterceptors, about: message, accountId: accountId, timeoutMillis: messageTimeout)
        } catch {
            await files.remove(accountId: accountId, conversationId: conversationId, fileId: file.id)
            throw error
        }
    }

    /// Queues the rejection for the webhook registrations that want it.
    private func announce(_ event: WebInterceptorFileRejectedEvent, to dispatcher: WebhookDispatcher) {
        guard let accountId = event.accountId,
            let registrations = try? read(account: accountId, { $0.webhooks(accountId: accountId, wanting: FileReview.rejectedEvent) }),
            !registrations.isEmpty, let body = try? JSONBody.encoder.encode(event)
        else { return }
        dispatcher.enqueue(registrations.map { ResolvedWebhook($0, eventType: event.eventType, body: body, createdAt: event.timestamp) })
    }
}
