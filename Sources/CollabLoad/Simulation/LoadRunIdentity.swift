/// What makes one load run's simulated devices its own.
enum LoadRunIdentity {
    /// Part of every device id: anonymous devices hold a secret from their first start (kept in the
    /// process's memory), so a later run against the same server must not reuse the earlier run's ids.
    /// The seed still decides every choice the devices make.
    static let nonce = String(UInt32.random(in: 0...UInt32.max), radix: 36)
}
