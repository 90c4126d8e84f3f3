import CollabCore
import CollabWire

extension WebTextMessage {
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
