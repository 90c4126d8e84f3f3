import AsyncHTTPClient
import CollabCore
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Cluster-wide inspector reads (`scope=cluster`): the same request, with the caller's credentials, to
/// every other replica announced in the database, merged with this replica's answer.
///
/// What lives in each process — the journal, the push outbox, frame counts — is per replica; the stored
/// state is the same everywhere. A replica that does not answer within the timeout is listed in
/// `missingReplicas` rather than failing the read.
struct ClusterReads {
    let repository: StateRepository
    static let timeout: TimeAmount = .seconds(5)

    /// Whether the request asks for the whole cluster.
    static func wanted(_ request: Request) throws(CollabError) -> Bool {
        switch request.uri.queryParameters.get("scope") {
        case nil, "replica": false
        case "cluster": true
        case let other?: throw .badRequest("scope must be 'replica' or 'cluster', not '\(other.prefix(40))'")
        }
    }

    /// Asks every other replica for `request`'s path and query (without `scope`).
    /// - Returns: Each answering replica's URL and decoded answer, this replica's URL, and the replicas
    ///   that did not answer.
    func askPeers<Answer: Decodable & Sendable>(_ request: Request, as type: Answer.Type) async throws -> (
        answers: [(url: String, answer: Answer)], own: String, missing: [String]
    ) {
        let replicas = try await repository.clusterReplicas()
        let origin = repository.clusterOrigin
        let own = replicas.first { $0.origin == origin }?.url ?? "this replica"
        let peers = replicas.filter { $0.origin != origin }
        // The raw query, as encoded, without `scope`.
        let kept = (request.uri.query ?? "").split(separator: "&").filter { !$0.hasPrefix("scope=") && $0 != "scope" }.joined(separator: "&")
        let query = kept.isEmpty ? "" : "?" + kept
        let path = request.uri.path
        var headers: [(String, String)] = []
        for name in ["authorization", "cookie"] {
            for value in request.headers[values: HTTPField.Name(name)!] { headers.append((name, value)) }
        }
        let forwarded = headers
        return await withTaskGroup(of: (String, Answer?).self) { group in
            for peer in peers {
                group.addTask {
                    var outgoing = HTTPClientRequest(url: peer.url + path + query)
                    for (name, value) in forwarded { outgoing.headers.add(name: name, value: value) }
                    do {
                        let response = try await HTTPClient.shared.execute(outgoing, timeout: Self.timeout)
                        let body = try await response.body.collect(upTo: 64 << 20)
                        guard response.status == .ok else { return (peer.url, nil) }
                        return (peer.url, try JSONDecoder().decode(Answer.self, from: Data(buffer: body, byteTransferStrategy: .noCopy)))
                    } catch {
                        return (peer.url, nil)
                    }
                }
            }
            var answers: [(url: String, answer: Answer)] = []
            var missing: [String] = []
            for await (url, answer) in group {
                if let answer { answers.append((url, answer)) } else { missing.append(url) }
            }
            return (answers.sorted { $0.url < $1.url }, own, missing.sorted())
        }
    }

    /// This replica's journal page merged with the others': the newest `limit` entries, oldest first,
    /// each naming its replica.
    func journal(_ request: Request, own page: JournalPage, limit: Int) async throws -> JournalPage {
        let (answers, ownURL, missing) = try await askPeers(request, as: JournalPage.self)
        var merged = page
        merged.entries = page.entries.map { entry in
            var entry = entry
            entry.replica = ownURL
            return entry
        }
        for (url, answer) in answers {
            merged.entries += answer.entries.map { entry in
                var entry = entry
                entry.replica = url
                return entry
            }
            merged.size += answer.size
            merged.capacity += answer.capacity
            merged.bytes += answer.bytes
            merged.maxBytes += answer.maxBytes
            merged.truncated = merged.truncated || answer.truncated
            merged.evicted = merged.evicted || answer.evicted
        }
        merged.entries.sort { ($0.timestamp, $0.replica ?? "", $0.id) < ($1.timestamp, $1.replica ?? "", $1.id) }
        if merged.entries.count > limit { merged.entries.removeFirst(merged.entries.count - limit) }
        merged.replicas = [ownURL] + answers.map(\.url)
        merged.missingReplicas = missing
        return merged
    }

    /// This replica's statistics with the per-replica figures (journal, pushes, frames) summed over the cluster.
    func stats(_ request: Request, own: StateStats) async throws -> StateStats {
        let (answers, ownURL, missing) = try await askPeers(request, as: StateStats.self)
        var merged = own
        for (_, answer) in answers {
            merged.journalEntries += answer.journalEntries
            merged.pushesEmitted += answer.pushesEmitted
            merged.pushOutcomes = merged.pushOutcomes + answer.pushOutcomes
            merged.frames = merged.frames + answer.frames
            merged.framesHeld = merged.framesHeld + answer.framesHeld
        }
        merged.replicas = [ownURL] + answers.map(\.url)
        merged.missingReplicas = missing
        return merged
    }
}
