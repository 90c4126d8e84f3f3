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
        group.get("snapshot") { request, context in
            let accountId = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            let secrets = try SnapshotSecrets.allowed(for: context.principal, asked: request.query("secrets"))
            let data = try await env.takeSnapshot(accountId: accountId, secrets: secrets).encoded()
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        // Importing changes state, so it stays with super admins and the control token like reset and seed.
        group.operation(.post, "snapshot", role: .superAdmin) { request, context in
            let limit = env.configuration.maxSnapshotBytes
            let buffer = try await JSONBody.collect(request, limit: limit)
            return JSONBody.response(try await env.restore(try Snapshot.decode(Data(buffer: buffer))))
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

    /// Imports a snapshot: a server snapshot replaces everything (and sets the clock), an account snapshot
    /// replaces that account only (the clock, shared by every account, stays). The snapshot's file
    /// contents are checked against its FILE messages and stored durably before its records commit; if
    /// the records are refused, the files it added are removed again.
    func restore(_ snapshot: Snapshot) async throws -> SnapshotImportResult {
        var snapshot = snapshot
        if snapshot.secrets == .redacted {
            let context = operation
            snapshot.accounts = try snapshot.accounts.map { data throws(CollabError) in try data.renewingRedactedSecrets(context: context) }
        }
        for data in snapshot.accounts { _ = try AccountState.fromSnapshot(data) }
        let added = try await putFiles(of: snapshot)
        do {
            try await replaceRecords(with: snapshot)
        } catch {
            for file in added { await files.remove(accountId: file.accountId, conversationId: file.conversationId, fileId: file.fileId) }
            throw error
        }
        return SnapshotImportResult(
            scope: snapshot.scope.rawValue, accounts: snapshot.accounts.map(\.account.name),
            records: snapshot.accounts.reduce(0) { $0 + $1.records.count + 1 }, version: snapshot.sourceVersion
        )
    }

    private func replaceRecords(with snapshot: Snapshot) async throws {
        switch snapshot.scope {
        case .server:
            let before = Set(repository.accountIds)
            let filesBefore = fileLocations(before)
            try await repository.replaceAll(with: snapshot)
            await removeUnreferencedFiles(filesBefore)
            // An account that stays keeps the stored files its restored FILE messages name (a version-1
            // snapshot carries no contents); the files of accounts that went are removed.
            for id in before.subtracting(snapshot.accounts.map(\.account.id)) { await files.removeAccount(id) }
            if let saved = snapshot.clock { clock.restore(saved) }
            frames.removeAll()
            await clockTasks.runNow()
        case .account:
            guard let data = snapshot.accounts.first else { throw CollabError.badRequest("an account snapshot holds exactly one account") }
            let filesBefore = fileLocations([data.account.id])
            let replaced = try await repository.replaceAccount(with: data)
            await removeUnreferencedFiles(filesBefore)
            for id in replaced.union([data.account.id]) { frames.removeAll(accountId: id) }
            for id in replaced where id != data.account.id { await files.removeAccount(id) }
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

extension AdjustableClock {
    /// Sets the clock to a snapshot's: frozen at its instant, or running at its offset.
    func restore(_ saved: Snapshot.Clock) {
        if saved.frozen {
            setFrozen(true)
            advance(by: saved.now - now())
        } else {
            setFrozen(false)
            advance(by: saved.offset - offset)
        }
    }
}
