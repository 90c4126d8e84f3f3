import CollabCore
import CollabStore
import CollabWire
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// Snapshots on the control API: `GET /_mock/v1/snapshot[?account=][&secrets=]` exports the whole state
/// (super admins) or one account (admins: their own only), `POST /_mock/v1/snapshot` imports one (super
/// admins). What an export holds depends on the caller (``SnapshotSecrets/allowed(for:asked:)``).
struct SnapshotRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let exports = SnapshotExports()
        group.get("snapshot") { request, context in
            let accountId = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            let secrets = try SnapshotSecrets.allowed(for: context.principal, asked: request.query("secrets"))
            let data = try await exports.run(accountId: accountId) { try await env.takeSnapshot(accountId: accountId, secrets: secrets).encoded() }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        // Importing changes state, so it stays with super admins and the control token like reset and seed.
        group.operation(.post, "snapshot", role: .superAdmin) { request, _ in
            let declared = request.headers[.contentLength].flatMap { Int($0) }
            return JSONBody.response(try await env.importSnapshot(request.body, declaredLength: declared))
        }
    }
}

extension CollabEnvironment {
    /// A snapshot of one account, or of everything when `accountId` is `nil`, with the contents of
    /// the accounts' files, with or without credentials.
    /// - Throws: `payloadTooLarge` when the files' contents alone would be larger than
    ///   `maxSnapshotBytes` (checked before a byte is read).
    func takeSnapshot(accountId: String?, secrets: SnapshotSecrets) async throws -> Snapshot {
        let clock = Snapshot.Clock(now: self.clock.now(), offset: self.clock.offset, frozen: self.clock.isFrozen)
        var budget = configuration.maxSnapshotBytes
        var snapshot: Snapshot
        if let accountId {
            let data = try await accountSnapshot(accountId, secrets: secrets, budget: &budget)
            snapshot = Snapshot(scope: .account, takenAt: clock.now, clock: clock, globalConfiguration: nil, accounts: [data])
        } else {
            var accounts: [Snapshot.AccountData] = []
            for id in repository.accountIds.sorted() {
                do {
                    accounts.append(try await accountSnapshot(id, secrets: secrets, budget: &budget))
                } catch let error as CollabError where error.kind == .notFound {
                    continue  // deleted while the snapshot was taken
                }
            }
            snapshot = Snapshot(
                scope: .server, takenAt: clock.now, clock: clock, globalConfiguration: repository.directory.globalConfiguration, accounts: accounts
            )
        }
        snapshot.secrets = secrets
        return snapshot
    }

    /// Imports a snapshot as it arrives: a server snapshot replaces everything (and sets the clock), an
    /// account snapshot replaces that account only (the clock, shared by every account, stays).
    ///
    /// The body is read piece by piece (``SnapshotReader``): the accounts' shards are built as their
    /// records come and the files are staged as they are read, out of sight; a refusal — bad input, a
    /// conflict, the size limit — drops what was staged and changes nothing. Only once the records
    /// commit are the staged files put in place.
    /// - Parameter declaredLength: The body's `Content-Length`, refused at once beyond the limit.
    /// - Throws: `payloadTooLarge` beyond `maxSnapshotBytes`, `badRequest` naming what is wrong,
    ///   `conflict` when another account holds a name, key or token of the snapshot's.
    func importSnapshot(_ body: some AsyncSequence<ByteBuffer, any Error>, declaredLength: Int? = nil) async throws -> SnapshotImportResult {
        let limit = configuration.maxSnapshotBytes
        if let declaredLength, declaredLength > limit {
            throw CollabError(.payloadTooLarge, "the snapshot of \(declaredLength) bytes is larger than the \(limit) bytes a snapshot may have")
        }
        var reader = SnapshotReader()
        let staging = files.beginImport()
        do {
            var received = 0
            for try await chunk in body {
                received += chunk.readableBytes
                guard received <= limit else {
                    throw CollabError(.payloadTooLarge, "the snapshot is larger than the \(limit) bytes a snapshot may have")
                }
                let items = try chunk.withUnsafeReadableBytes { bytes in try reader.read(bytes) }
                for item in items {
                    reader.staged(try await files.stage(item.content, accountId: item.accountId, in: staging), account: item.account)
                }
            }
            let snapshot = try reader.finish(context: operation)
            try files.checkRoom(for: staging)
            try await replaceRecords(with: snapshot, files: staging)
            return SnapshotImportResult(
                scope: snapshot.scope.rawValue, accounts: snapshot.accounts.map(\.account.name), records: snapshot.records,
                version: snapshot.sourceVersion
            )
        } catch {
            await files.discard(staging)
            throw error
        }
    }

    /// Commits a snapshot's records, then puts its staged files in place.
    private func replaceRecords(with snapshot: SnapshotReader.Prepared, files staging: FileStorage.ImportStaging) async throws {
        switch snapshot.scope {
        case .server:
            let before = Set(repository.accountIds)
            let filesBefore = fileLocations(before)
            try await repository.replaceAll(with: snapshot.accounts, globalConfiguration: snapshot.globalConfiguration)
            await files.publish(staging)
            await removeUnreferencedFiles(filesBefore)
            // An account that stays keeps the stored files its restored FILE messages name (a version-1
            // snapshot carries no contents); the files of accounts that went are removed.
            for id in before.subtracting(snapshot.accounts.map(\.accountId)) { await files.removeAccount(id) }
            if let saved = snapshot.clock {
                // Stored before it applies, as every clock change is: a storage failure leaves the clock.
                let setting = ClockSetting(restoring: saved)
                try await repository.storeClock(setting)
                clock.apply(setting)
            }
            frames.removeAll()
            await clockTasks.runNow()
        case .account:
            guard let state = snapshot.accounts.first else { throw CollabError.badRequest("an account snapshot holds exactly one account") }
            let filesBefore = fileLocations([state.accountId])
            let replaced = try await repository.replaceAccount(with: state)
            await files.publish(staging)
            await removeUnreferencedFiles(filesBefore)
            for id in replaced.union([state.accountId]) { frames.removeAll(accountId: id) }
            for id in replaced where id != state.accountId { await files.removeAccount(id) }
        }
    }
}

extension CollabEnvironment {
    /// The stored files of the given accounts, by account and file id.
    fileprivate func fileLocations(_ accountIds: Set<String>) -> [String: [String: FileLocation]] {
        var locations: [String: [String: FileLocation]] = [:]
        for id in accountIds { locations[id] = try? read(account: id) { $0.files.byId } }
        return locations
    }

    /// Removes the stored bytes of files that no FILE message names any more after a restore (uploaded
    /// after the snapshot was taken), so they do not count against the quota.
    fileprivate func removeUnreferencedFiles(_ before: [String: [String: FileLocation]]) async {
        for (accountId, files) in before {
            guard let now = try? read(account: accountId, { $0.files.byId }) else { continue }
            for (fileId, location) in files where now[fileId] == nil {
                await self.files.remove(accountId: accountId, conversationId: location.conversationId, fileId: fileId)
            }
        }
    }
}

extension SnapshotSecrets {
    /// What an export for `principal` holds: `asked` (`included` or `redacted`) when the caller may have
    /// it, else the default — everything for the control token, no credentials for everyone else.
    /// - Throws: `badRequest` for an unknown value; `forbidden` when a caller other than the control
    ///   token or a super admin asks for the secrets.
    static func allowed(for principal: Principal, asked: String?) throws(CollabError) -> SnapshotSecrets {
        let mayInclude = principal.method == .controlToken || principal.role >= .superAdmin
        guard let asked else { return principal.method == .controlToken ? .included : .redacted }
        guard let wanted = SnapshotSecrets(rawValue: asked) else { throw .badRequest("secrets must be 'included' or 'redacted'") }
        if wanted == .included, !mayInclude {
            throw .forbidden("only the control token or a super admin may export secrets (secrets=included)")
        }
        return wanted
    }
}

extension ClockSetting {
    /// The setting a snapshot's clock stands for: frozen at its instant, or running at its offset.
    init(restoring saved: Snapshot.Clock) {
        self.init(offset: saved.offset, frozenAt: saved.frozen ? saved.now : nil)
    }
}
