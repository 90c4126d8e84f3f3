import CollabCore
import CollabWire

extension WebTextMessage {
    /// A stored message as the vendor's `TextPostMessageData` (or `FileMessageData`), sent by `sender`.
    init(_ message: ConversationMessage, sender: WebPerson?) {
        self.init(
            id: message.id, conversationId: message.conversationId, accountId: message.accountId, senderPerson: sender,
            timestamp: message.serverTimestamp, text: message.text, internal: message.isInternal
        )
        if let file = message.file { describe(file) }
    }

    /// Turns the message into the vendor's `FileMessageData` for a FILE message: the file's name (also
    /// the fallback text), type, size and store id; no text.
    mutating func describe(_ file: FileAttachment) {
        type = "FileMessageData"
        messageType = "FILE"
        text = nil
        textType = nil
        fallbackText = file.name
        fileName = file.name
        mimeType = file.mimeType
        fileStoreId = file.id
        fileStatus = "COMPLETED"
        totalSize = file.size
        uploadedSize = file.size
    }
}
