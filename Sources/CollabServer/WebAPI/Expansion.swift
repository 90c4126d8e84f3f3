import CollabCore
import Hummingbird

/// Which optional parts of an entity a response includes (`expand=configuration,metadata,text`).
struct Expansion: Sendable, Hashable {
    var configuration = false
    var metadata = false
    var text = false

    private static let known: Set<String> = ["actionIcon", "avatar", "channelIcon", "configuration", "metadata", "text"]

    init(configuration: Bool = false, metadata: Bool = false, text: Bool = false) {
        self.configuration = configuration
        self.metadata = metadata
        self.text = text
    }

    /// Reads `expand` from the query string.
    init(_ request: Request) throws(CollabError) {
        for value in request.queryList("expand") {
            guard Self.known.contains(value) else { throw .badRequest("unknown expand field '\(value)'") }
            switch value {
            case "configuration": configuration = true
            case "metadata": metadata = true
            case "text": text = true
            default: break  // avatars and icons are not modelled; accepted and ignored
            }
        }
    }
}
