import ArgumentParser
import CollabSeedExport
import Foundation

/// `mock-collab seed`: tools around seed files.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Work with seed files (docs/seed-files.md).",
        subcommands: [SeedExportCommand.self]
    )
}

/// `mock-collab seed export --from URL (--api-key K | --user U --password P) [--account NAME] > seed.yaml`.
struct SeedExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Read an account of a running Web API v4 server and write it as a seed file to stdout.",
        discussion: """
            Reads, through the vendor's Web API v4 only (so the vendor's server works as well as another \
            MockCollab), the account's configuration, named areas, users, teams, conversation templates, \
            canned responses, person labels, dialog bots and webhook registrations, and writes them as a \
            seed that `mock-collab serve --seed FILE` loads as it is. Secrets are never exported: users come \
            without passwords, webhooks and bots without their secrets, API keys not at all (the seed's \
            comments say how to add them). Progress, and what was skipped and why, go to stderr; a kind the \
            server refuses is skipped, not fatal.

            Credentials: --user/--password use HTTP basic authentication (or a login session when --account \
            names another account, which needs a super admin); --api-key is sent as `Authorization: Bearer` \
            (on MockCollab: a Web API session token, e.g. from authenticator/login).
            """
    )

    @Option(help: "The server's root URL, e.g. https://collab.example.com (the Web API is under /app/rest/v4).")
    var from: String

    @Option(help: "A bearer token, sent as `Authorization: Bearer` (instead of --user/--password).")
    var apiKey: String?

    @Option(help: "The user to read as (an admin of the account, or a super admin with --account).")
    var user: String?

    @Option(help: "The password of --user.")
    var password: String?

    @Option(help: "The account to export, by name; default: the caller's own.")
    var account: String?

    @Option(help: "Items per search page (1 to \(SeedExportOptions.maximumPageSize)).")
    var pageSize = 100

    @Option(help: "The most entities of one kind to export (1 to \(SeedExportOptions.maximumPerKind)); the rest is reported, not exported.")
    var maxPerKind = 5_000

    @Option(help: "The Web API prefix (/unblu/rest/v4 is the vendor's alias).")
    var prefix = "/app/rest/v4"

    @OptionGroup
    var tls: ClientTLSArguments

    func validate() throws {
        guard from.hasPrefix("http://") || from.hasPrefix("https://") else { throw ValidationError("--from must be an http:// or https:// URL") }
        switch (apiKey, user, password) {
        case (.some, nil, nil), (nil, .some, .some): break
        case (.some, _, _): throw ValidationError("give --api-key or --user/--password, not both")
        default: throw ValidationError("give --api-key, or --user and --password")
        }
        guard (1...SeedExportOptions.maximumPageSize).contains(pageSize) else {
            throw ValidationError("--page-size must be 1 to \(SeedExportOptions.maximumPageSize)")
        }
        guard (1...SeedExportOptions.maximumPerKind).contains(maxPerKind) else {
            throw ValidationError("--max-per-kind must be 1 to \(SeedExportOptions.maximumPerKind)")
        }
    }

    func run() async throws {
        let credentials: SeedExportOptions.Credentials =
            if let apiKey { .bearer(apiKey) } else { .user(username: user ?? "", password: password ?? "") }
        let options = SeedExportOptions(
            baseURL: from, credentials: credentials, account: account, pageSize: pageSize, maxPerKind: maxPerKind, prefix: prefix,
            tls: try tls.options()
        )
        let exporter = SeedExporter(options: options) { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) }
        do {
            let result = try await exporter.export()
            let yaml = try result.yaml(source: options.displayURL)
            FileHandle.standardOutput.write(Data(yaml.utf8))
            let summary = result.exported.map { "\($0.count) \($0.kind)" }.joined(separator: ", ")
            FileHandle.standardError.write(
                Data("exported \(summary); \(result.skipped.count) things skipped (listed above and in the seed's comments)\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("seed export failed: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}
