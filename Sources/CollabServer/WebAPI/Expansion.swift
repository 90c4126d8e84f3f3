import CollabCore
import Hummingbird

/// Which optional parts of an entity a response includes (`expand=configuration,metadata,text`).
struct Expansion: Sendable, Hashable {
    var configuration = false
    var metadata = false
    var text = false

    private static let known: Set<String> = ["actionIcon", "avatar", "channelIcon", "configuration", "metadata", "text"]

    /// An entity's configuration, metadata and text as the caller asked for them: each as stored (absent
    /// metadata and text as empty) when expanded, nil — left out of the body — when not.
    func parts(configuration: [String: String], metadata: [String: String]?, text: [String: [String: String]]?)
        -> (configuration: [String: String]?, metadata: [String: String]?, text: [String: [String: String]]?)
    {
        (self.configuration ? configuration : nil, self.metadata ? metadata ?? [:] : nil, self.text ? text ?? [:] : nil)
    }

    /// The expanded fields by name (what ``EntityWire/json(_:expanding:)`` takes).
    var fields: Set<String> {
        Set([configuration ? "configuration" : nil, metadata ? "metadata" : nil, text ? "text" : nil].compactMap { $0 })
    }
}

extension Expansion {
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
