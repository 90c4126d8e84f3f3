import CollabCore
import Foundation
import Testing

/// PINs drawn evenly (issue 25, item 10) and guessing at them bounded per address, per account and
/// per invitation (item 9), on an injected clock.
@Suite("Invitation guessing")
struct InvitationGuessingTests {
    let context = OperationContext(now: 1_000, ids: .system)

    /// Account "a" with an admin and an agent, a conversation, and a PIN invitation to it.
    func pinInvitation() throws -> (state: AccountState, admin: Principal, agentPersonId: String, invitation: Invitation) {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(name: "a", users: [.init(username: "a-admin", role: .admin), .init(username: "a-agent", role: .registeredUser)])
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        var state = try #require(shards.state(named: "a"))
        let user = try #require(state.user(loginName: "a-admin"))
        let admin = Principal(
            accountId: user.accountId, userId: user.id, personId: state.person(ofUser: user)?.id, role: user.authorizationRole, method: .basic
        )
        let agentUser = try #require(state.user(loginName: "a-agent"))
        let agent = try #require(state.person(ofUser: agentUser))
        let conversation = try state.createConversation(
            ConversationInput(topic: "pins"), accountId: user.accountId, context: context, changes: &changes
        )
        let invitation = try state.inviteAnonymousVisitor(
            .pin, conversationId: conversation.id, nickname: nil, creatorPersonId: nil, for: admin, context: context, changes: &changes
        )
        return (state, admin, agent.id, invitation)
    }

    @Test("every PIN digit is equally likely: a chi-square bound over 12,000 digits (the old draw put 5 at 12.8 %)")
    func pinDigitsAreUniform() throws {
        var (state, admin, _, invitation) = try pinInvitation()
        var counts = [Int](repeating: 0, count: 10)
        var changes = ChangeSet()
        for _ in 0..<2_000 {
            let renewed = try state.renewPin(invitation.id, for: admin, context: context, changes: &changes)
            #expect(renewed.token.count == 6)
            for digit in renewed.token.utf8 { counts[Int(digit - UInt8(ascii: "0"))] += 1 }
        }
        let expected = Double(counts.reduce(0, +)) / 10
        let chiSquare = counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
        // 9 degrees of freedom: a fair draw exceeds 70 with a chance of 1.5e-11; the old one scored ≈ 246.
        #expect(chiSquare < 70, "digit counts \(counts), chi-square \(chiSquare)")
    }

    @Test("digits are drawn by rejection: bytes from 250 up are skipped, the rest reduced modulo ten")
    func rejectionSampling() {
        // 0xFF and 0xFA are skipped; 0xF9 = 249 → 9, 0x0A = 10 → 0, 0x05 → 5.
        let bytes: UInt64 = 0x05_0A_F9_FA_FF_FF_FF_FF
        let generator = EntityIDGenerator { bytes }
        #expect(generator.makeDigits(6) == "905905")
    }

    /// `count` admitted attempts at account "a" at time 0 that all fail, from `address(n)`.
    func fail(_ attempts: inout RedemptionAttempts, _ count: Int, from address: (Int) -> String) {
        for n in 0..<count {
            #expect(attempts.admit(accountId: "a", address: address(n), now: 0) == .admitted)
            attempts.failed(accountId: "a", now: 0)
        }
    }

    @Test("per address: a burst, then 429 until the window frees a slot; other addresses and other accounts are not locked out")
    func perAddress() {
        var attempts = RedemptionAttempts(limits: RedemptionLimits(perAddress: 3, perAccount: 100, perInvitation: 1_000, window: 60_000))
        fail(&attempts, 3) { _ in "10.0.0.1" }
        #expect(attempts.admit(accountId: "a", address: "10.0.0.1", now: 0) == .refused(retryAfter: 20_000))
        #expect(attempts.admit(accountId: "a", address: "10.0.0.2", now: 0) == .admitted, "another address of the same account")
        #expect(attempts.admit(accountId: "b", address: "10.0.0.1", now: 0) == .admitted, "the same address at another tenant")
        #expect(attempts.admit(accountId: "a", address: "10.0.0.1", now: 19_999) == .refused(retryAfter: 1))
        #expect(attempts.admit(accountId: "a", address: "10.0.0.1", now: 20_000) == .admitted)
    }

    @Test("only failures count: successful redemptions give their charge back")
    func successesAreFree() {
        var attempts = RedemptionAttempts(limits: RedemptionLimits(perAddress: 2, perAccount: 2, perInvitation: 1_000, window: 60_000))
        for _ in 0..<50 {
            #expect(attempts.admit(accountId: "a", address: "10.0.0.1", now: 0) == .admitted)
            attempts.succeeded(accountId: "a", address: "10.0.0.1")
        }
    }

    @Test("per account: many addresses together hit the account's own limit, and only it")
    func perAccount() {
        var attempts = RedemptionAttempts(limits: RedemptionLimits(perAddress: 10, perAccount: 5, perInvitation: 1_000, window: 60_000))
        fail(&attempts, 5) { "10.0.1.\($0)" }
        #expect(attempts.admit(accountId: "a", address: "10.0.2.1", now: 0) == .refused(retryAfter: 12_000))
        #expect(attempts.admit(accountId: "b", address: "10.0.2.1", now: 0) == .admitted, "another tenant is not slowed")
    }

    @Test("address keys are bounded: the one nearest to expiry makes room")
    func boundedMemory() {
        var attempts = RedemptionAttempts(limits: RedemptionLimits(perAddress: 1, perAccount: 1_000_000, window: 60_000), maxKeys: 100)
        for n in 0..<1_000 {
            #expect(attempts.admit(accountId: "a", address: "10.\(n / 256).\(n % 256).1", now: Int64(n)) == .admitted)
            #expect(attempts.addressKeyCount <= 100)
        }
    }

    @Test("per invitation: once its account saw the budget of failures, the right PIN reads as a wrong one until renewed")
    func perInvitation() throws {
        var (state, admin, agentPersonId, invitation) = try pinInvitation()
        var attempts = RedemptionAttempts(limits: RedemptionLimits(perAddress: 1_000, perAccount: 1_000, perInvitation: 20, window: 60_000))
        var changes = ChangeSet()
        let later = OperationContext(now: context.now + 10, ids: .system)
        for _ in 0..<20 { attempts.failed(accountId: invitation.accountId, now: later.now) }
        let spent = attempts
        #expect(throws: CollabError(.notFound, "no open invitation has this PIN or link")) {
            _ = try state.redeemInvitation(
                token: invitation.token, personId: agentPersonId, accountId: invitation.accountId,
                guessBudgetSpent: { spent.isBudgetSpent(accountId: invitation.accountId, since: $0) }, context: later, changes: &changes
            )
        }
        // Failures before a renewal do not count against the new PIN.
        let renewalContext = OperationContext(now: later.now + 1, ids: .system)
        let renewed = try state.renewPin(invitation.id, for: admin, context: renewalContext, changes: &changes)
        let conversation = try state.redeemInvitation(
            token: renewed.token, personId: agentPersonId, accountId: invitation.accountId,
            guessBudgetSpent: { spent.isBudgetSpent(accountId: invitation.accountId, since: $0) }, context: renewalContext, changes: &changes
        )
        #expect(conversation.isParticipant(agentPersonId))
    }
}
