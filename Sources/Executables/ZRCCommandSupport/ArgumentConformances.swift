public import ArgumentParser
public import Logging
public import ZRCProtocol
public import ZRCStorage

// Option types both executables parse.
extension KeyStoreChoice: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
extension TransferRateLimit: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
