import CollabCore
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Limits guessing at invitations (``RedemptionAttempts``) on the server's clock, so the virtual
/// clock of the control API moves the windows too. One per server process, shared by every surface
/// that takes a token (``CollabEnvironment/redemptions``), so an account has one budget whichever way
/// tokens are tried: in a cluster each replica counts its own attempts.
///
/// Each account's attempts sit behind a lock of their own (``PerAccount``), so one tenant's guesses
/// never wait on another tenant's counting; the address keys are bounded per account.
final class RedemptionGuard: Sendable {
    private let accounts: PerAccount<RedemptionAttempts>
    private let clock: AdjustableClock

    init(limits: RedemptionLimits, clock: AdjustableClock) {
        accounts = PerAccount { RedemptionAttempts(limits: limits) }
        self.clock = clock
    }

    /// Runs one redemption `attempt` by `address` at `accountId` if the limits allow it; a wrong token
    /// (`NOT_FOUND`) counts as a failure, anything else gives the attempt back.
    /// - Throws: `TOO_MANY_REQUESTS` with the seconds to wait, without running `attempt`.
    func redeem<T>(accountId: String, address: String, _ attempt: () async throws -> T) async throws -> T {
        let admission = accounts.withLock(accountId) { $0.admit(accountId: accountId, address: address, now: clock.now()) }
        if case .refused(let wait) = admission {
            throw CollabError.tooManyRequests(
                "too many wrong invitation tokens from this address or account; try again later", retryAfterSeconds: Int((wait + 999) / 1000)
            )
        }
        do {
            let result = try await attempt()
            accounts.withLock(accountId) { $0.succeeded(accountId: accountId, address: address) }
            return result
        } catch let error as CollabError where error.kind == .notFound {
            accounts.withLock(accountId) { $0.failed(accountId: accountId, now: clock.now()) }
            throw error
        } catch {
            accounts.withLock(accountId) { $0.succeeded(accountId: accountId, address: address) }
            throw error
        }
    }

    /// Forgets a deleted account's attempts.
    func accountDeleted(_ accountId: String) {
        accounts.remove(accountId)
    }

    /// Whether the guard counts attempts for the account (for tests).
    func holdsPart(of accountId: String) -> Bool {
        accounts.holdsValue(of: accountId)
    }

    /// Whether a PIN open since `since` has used up its account's guess budget.
    func isBudgetSpent(accountId: String, since: Timestamp) -> Bool {
        accounts.withExisting(accountId) { $0.isBudgetSpent(accountId: accountId, since: since) } ?? false
    }

    /// The key a peer's attempts count under: its IPv4 address, or the /64 network of an IPv6 one
    /// (one host usually holds a whole /64). A peer behind a proxy counts as the proxy.
    static func addressKey(_ address: SocketAddress?) -> String {
        guard let address else { return "unknown" }
        guard case .v6 = address, let ip = address.ipAddress else { return address.ipAddress ?? "unknown" }
        // An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 peer it maps.
        if ip.hasPrefix("::ffff:"), ip.contains(".") { return String(ip.dropFirst(7)) }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, ip, &bytes) == 1 else { return ip }
        return bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }
}
