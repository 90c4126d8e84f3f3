import CollabCore
import CollabSeed
import Yams

extension SeedExportResult {
    /// The seed as YAML, headed by comments that say where it came from, what was never exported and
    /// how to add it, and what was skipped.
    ///
    /// Keys are sorted so two exports of the same account give the same text (a diff shows what changed).
    /// - Parameter source: The server's URL, for the header.
    /// - Throws: ``SeedExportError`` when the seed cannot be encoded or would not load (larger than a
    ///   seed may be, or refused by the seed parser).
    public func yaml(source: String) throws(SeedExportError) -> String {
        let encoder = YAMLEncoder()
        encoder.options.sortKeys = true
        let body: String
        do { body = try encoder.encode(seed) } catch { throw SeedExportError(status: nil, "cannot write the seed as YAML: \(error)") }
        let text = header(source: source) + body
        guard text.utf8.count <= SeedLoader.maximumBytes else {
            throw SeedExportError(
                status: nil, "the seed would be \(text.utf8.count) bytes, more than a seed may be (\(SeedLoader.maximumBytes)): lower --max-per-kind"
            )
        }
        do {
            _ = try SeedLoader.parse(text)
        } catch {
            throw SeedExportError(status: nil, "the exported seed does not parse: \(error.message)")
        }
        return text
    }

    private func header(source: String) -> String {
        var lines = [
            "A MockCollab seed written by `mock-collab seed export` from \(source), account '\(seed.accounts.first?.name ?? "?")'.",
            "Load it with `mock-collab serve --seed FILE` or POST it to /_mock/v1/seed (docs/seed-files.md).",
            "",
            "Secrets are never exported:",
            "- users have no password: the loader creates a user without one, and such a user cannot log in",
            "  until one is set: add `password: ...` to the user here (stored only as a bcrypt hash), or call",
            "  users/{userId}/setPassword on the running server;",
            "- webhook registrations and bots get a new random secret when loaded: add `secret: ...` (webhooks)",
            "  or `webhookSecret: ...` (bots) to choose it;",
            "- API keys are left out: add them under `apiKeys:` (`- key: ...`) for apps to start with.",
        ]
        if !skipped.isEmpty {
            lines += ["", "Skipped while exporting:"] + skipped.map { "- " + $0 }
        }
        return lines.map { ("# " + $0.replacing("\n", with: " ")).trimmingSuffix() + "\n" }.joined() + "\n"
    }
}

extension String {
    fileprivate func trimmingSuffix() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
