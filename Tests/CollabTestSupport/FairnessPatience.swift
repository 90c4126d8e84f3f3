/// How long a fairness test waits for what a fair queue hands out at once: the quiet account's work
/// while a noisy account's hangs.
///
/// It is not a speed budget. Alone such a test finishes in well under a second, but when the whole
/// suite starts on a 2-core machine every suite builds its servers at once, and one webhook round trip
/// was measured at 26 s there. What keeps the wait honest is the hold: each fairness test makes the
/// noisy account's work hang for far longer than this (ten minutes, or a backlog that takes minutes
/// to drain), so a queue that made the quiet account wait behind the noisy one still fails the test.
package let fairnessPatience: Duration = .seconds(120)
