public import CollabCore
import Foundation
import Yams

/// Reads seeds from YAML or JSON text and files.
public enum SeedLoader {
    /// Parses a seed; JSON when the text starts with `{`, YAML otherwise.
    public static func parse(_ text: String) throws(CollabError) -> Seed {
        let trimmed = text.drop { $0.isWhitespace }
        do {
            if trimmed.first == "{" {
                return try JSONDecoder().decode(Seed.self, from: Data(text.utf8))
            }
            return try YAMLDecoder().decode(Seed.self, from: text)
        } catch let error as DecodingError {
            throw .badRequest("invalid seed: \(JSONBody.describe(error))")
        } catch {
            throw .badRequest("invalid seed: \(error)")
        }
    }

    /// Reads and parses a seed file.
    public static func load(path: String) throws(CollabError) -> Seed {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .badRequest("cannot read the seed file '\(path)'")
        }
        return try parse(text)
    }
}
