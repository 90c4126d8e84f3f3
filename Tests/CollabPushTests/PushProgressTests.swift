@testable import CollabPush
import Testing

/// The barrier behind `pushes/settle`: a wait ends once the intents queued before it are composed.
@Suite("Push progress")
struct PushProgressTests {
    @Test("an account's wait ends when its own intents are through, whatever another account has queued")
    func accountWaitsForItsOwn() async {
        let progress = PushProgress()
        #expect(progress.isSettled(accountId: "a") && progress.isSettled(accountId: nil))
        for _ in 0..<3 { #expect(progress.queued(accountId: "a", limit: 10)) }
        for _ in 0..<5 { progress.queued(accountId: "b") }
        #expect(!progress.queued(accountId: "b", limit: 5), "b's sixth intent is over its limit and not counted")
        async let forA = progress.settle(accountId: "a")
        async let forAll = progress.settle(accountId: nil)
        for _ in 0..<3 { progress.composed(accountId: "a") }
        #expect(await forA)
        #expect(progress.isSettled(accountId: "a") && !progress.isSettled(accountId: "b") && !progress.isSettled(accountId: nil))
        for _ in 0..<5 { progress.composed(accountId: "b") }
        #expect(await forAll)
        #expect(progress.isSettled(accountId: nil))
    }

    @Test("a wait queued after more intents still waits for those; a stop answers every wait false")
    func finishAnswersFalse() async {
        let progress = PushProgress()
        progress.queued(accountId: "a")
        progress.queued(accountId: "b")
        async let forA = progress.settle(accountId: "a")
        async let forAll = progress.settle(accountId: nil)
        progress.composed(accountId: "b")
        progress.finish()
        #expect(await forA == false)
        #expect(await forAll == false)
        #expect(await progress.settle(accountId: "a") == false, "a wait after the stop is answered at once")
    }

    @Test("a cancelled wait answers false and leaves nothing parked")
    func cancelled() async {
        let progress = PushProgress()
        progress.queued(accountId: "a")
        let waits = [Task { await progress.settle(accountId: "a") }, Task { await progress.settle(accountId: nil) }]
        for wait in waits { wait.cancel() }
        for wait in waits { #expect(await wait.value == false) }
        progress.composed(accountId: "a")
        #expect(await progress.settle(accountId: "a"))
        #expect(await progress.settle(accountId: nil))
    }
}
