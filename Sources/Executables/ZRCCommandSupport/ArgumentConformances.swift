public import ArgumentParser
public import Logging
public import ZRCStorage

// Option types both executables parse.
extension KeyStoreChoice: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
