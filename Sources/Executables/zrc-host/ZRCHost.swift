import ArgumentParser
import ZRCHostCommands

/// `zrc-host`: the root command of ZRCHostCommands, parsed and run by swift-argument-parser's
/// async `main()` (exit codes, help and error messages are the library's).
@main
extension ZRCHostCommand {}
