import CollabCore
import CollabPush
import CollabStore
import Logging
import ServiceLifecycle

/// The writes that follow what the consumers of the committed stream learn from the outside: a token a
/// push service rejected is removed, a dialog bot's answer to its offer is recorded. Each is a write of
/// its own through the repository's one path, so its effects (a `bot.dialog.opened` event, say) are
/// resolved at its commit like any other.
///
/// Its streams end when the push pipeline and the bot service stop (they stop before it: they come
/// after it among the services); it then waits to be told to stop itself.
struct FollowUpWrites: Service {
    let repository: StateRepository
    let clock: AdjustableClock
    let pushes: PushPipeline
    let bots: BotDialogService
    let logger: Logger

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await rejected in pushes.rejectedTokens {
                    await write(rejected.accountId, "removing a rejected push token") { state, changes, context in
                        state.removeRejectedToken(
                            deviceRecordId: rejected.deviceRecordId, transport: rejected.transport, token: rejected.token, context: context,
                            changes: &changes
                        )
                    }
                    pushes.tokenRemoved(rejected)
                }
            }
            group.addTask {
                for await answer in bots.answers {
                    await write(answer.accountId, "recording a dialog bot's answer") { state, changes, context throws(CollabError) in
                        _ = try state.answerOnboardingOffer(token: answer.dialogToken, accepted: answer.accepted, context: context, changes: &changes)
                    }
                }
            }
        }
        try? await gracefulShutdown()
    }

    private func write(
        _ accountId: String, _ what: String, _ body: (inout AccountState, inout ChangeSet, OperationContext) throws(CollabError) -> Void
    ) async {
        let context = OperationContext(now: clock.now(), ids: .system)
        do {
            try await repository.write(account: accountId) { state, changes throws(CollabError) in try body(&state, &changes, context) }
        } catch {
            logger.warning("\(what) failed", metadata: ["account": "\(accountId)", "error": "\(error)"])
        }
    }
}
