/// A suite that signs in as ``twoAccountSeed``'s users: their `Authorization` headers, as `Self.root`,
/// `Self.alphaAdmin` and `Self.betaAdmin`.
protocol TwoAccountLogins {}

extension TwoAccountLogins {
    /// The super admin (in account alpha).
    static var root: String { InProcessServer.basic("root", "root") }
    static var alphaAdmin: String { InProcessServer.basic("alpha-admin", "pw-a") }
    static var betaAdmin: String { InProcessServer.basic("beta-admin", "pw-b") }
}
