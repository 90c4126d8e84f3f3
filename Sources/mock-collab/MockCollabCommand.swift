import ArgumentParser
import CollabWire

/// `mock-collab`: a local stand-in for a chat, call and co-browsing Collaboration Server.
@main
struct MockCollabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-collab",
        abstract: "A local, stateful stand-in for a Collaboration Server (Web API v4 subset, mobile and agent APIs).",
        version: MockCollabVersion.current,
        subcommands: [
            ServeCommand.self, CertsCommand.self, LoadCommand.self, VisitorCommand.self, APNsSimCommand.self, BenchCommand.self, DocsCommand.self,
            SeedCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
