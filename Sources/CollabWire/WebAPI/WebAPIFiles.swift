/// `DownloadLink`: where a file of a conversation can be fetched (`WEB_API` or `AGENT_DESK`).
public struct WebDownloadLink: Codable, Sendable, Equatable {
    public var type: String? = "DownloadLink"
    /// `WEB_API` or `AGENT_DESK`.
    public var linkType: String?
    public var url: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type"
        case linkType = "type"
        case url
    }

    public init(linkType: String, url: String) {
        self.linkType = linkType
        self.url = url
    }
}

/// `ConversationFileData`: a file shared in a conversation.
public struct WebConversationFile: Codable, Sendable, Equatable {
    public var type: String? = "ConversationFileData"
    public var conversationId: String?
    public var ownerPersonId: String?
    public var name: String?
    public var mimeType: String?
    public var source: String?
    public var fileStoreId: String?
    public var totalSize: Int64?
    public var downloadLinks: [WebDownloadLink]?
    public var creationTimestamp: Int64?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", conversationId, ownerPersonId, name, mimeType, source, fileStoreId, totalSize, downloadLinks, creationTimestamp
    }

    public init(
        conversationId: String, ownerPersonId: String, name: String, mimeType: String, source: String?, fileStoreId: String, totalSize: Int64,
        downloadLinks: [WebDownloadLink], creationTimestamp: Int64
    ) {
        self.conversationId = conversationId
        self.ownerPersonId = ownerPersonId
        self.name = name
        self.mimeType = mimeType
        self.source = source
        self.fileStoreId = fileStoreId
        self.totalSize = totalSize
        self.downloadLinks = downloadLinks
        self.creationTimestamp = creationTimestamp
    }
}

/// `ConversationFileDataList`.
public struct WebConversationFileList: Codable, Sendable {
    public var type: String? = "ConversationFileDataList"
    public var items: [WebConversationFile]

    enum CodingKeys: String, CodingKey {
        case type = "$_type", items
    }

    public init(items: [WebConversationFile]) { self.items = items }
}
