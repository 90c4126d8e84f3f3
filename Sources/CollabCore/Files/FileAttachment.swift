public import CollabWire

/// A file shared in a conversation: what a FILE message carries, stored as the client sees it. The bytes
/// live in the server's file storage under `id`; the message row only names them.
public typealias FileAttachment = FileView

extension FileAttachment {
    /// The longest file name accepted, in UTF-8 bytes.
    public static let maximumNameLength = 255

    /// Checks a file name an uploader gave: present, bounded, one path component without control
    /// characters (it is shown and sent back in `Content-Disposition`, never used as a path).
    public static func checkName(_ name: String?) throws(CollabError) -> String {
        guard let name, !name.isEmpty else { throw .badRequest("a file name is required (the 'name' query parameter)") }
        guard name.utf8.count <= maximumNameLength else { throw .badRequest("the file name is longer than \(maximumNameLength) bytes") }
        guard name != ".", name != "..", !name.contains("/"), !name.contains("\\"),
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw .badRequest("the file name must be a single name without '/', '\\' or control characters")
        }
        guard !savedName(name).isEmpty else { throw .badRequest("the file name must not be only dots and spaces") }
        return name
    }

    /// The extension of the file name, lower-cased, without the dot; `nil` when there is none.
    public var fileExtension: String? { Self.fileExtension(of: name) }

    /// The extension of the name as it will be saved (see ``savedName(_:)``), lower-cased.
    static func fileExtension(of name: String) -> String? {
        let saved = savedName(name)
        guard let dot = saved.lastIndex(of: "."), dot != saved.startIndex else { return nil }
        let ext = saved[saved.index(after: dot)...].lowercased()
        return ext.isEmpty ? nil : ext
    }

    /// The name without trailing dots and spaces: Windows drops them when it saves a file, so
    /// `run.bat.`, `run.bat ` and `run.bat  ..` all become `run.bat` on the recipient's disk, and the
    /// extension checks must see the extension that will be saved.
    static func savedName(_ name: String) -> Substring {
        var saved = Substring(name)
        while let last = saved.last, last == "." || last == " " { saved = saved.dropLast() }
        return saved
    }
}

/// Where a file's message sits, for lookups by file id without scanning a conversation.
public struct FileLocation: Sendable, Equatable {
    public var conversationId: String
    /// The FILE message's sequence number (its position in the conversation's messages).
    public var sequence: Int
}

/// Files by id and per conversation, kept in step with the messages that carry them.
public struct FileIndex: Sendable {
    public private(set) var byId: [String: FileLocation] = [:]
    /// File ids per conversation, in upload order.
    public private(set) var byConversation: [String: [String]] = [:]

    public init() {}

    mutating func add(_ message: ConversationMessage) {
        guard let file = message.file else { return }
        byId[file.id] = FileLocation(conversationId: message.conversationId, sequence: message.sequence)
        byConversation[message.conversationId, default: []].append(file.id)
    }

    mutating func removeConversation(_ conversationId: String) {
        for id in byConversation.removeValue(forKey: conversationId) ?? [] { byId[id] = nil }
    }
}
