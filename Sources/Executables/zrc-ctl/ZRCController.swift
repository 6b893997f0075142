import ArgumentParser
import ZRCControllerCommands

/// `zrc-ctl`: the root command of ZRCControllerCommands, parsed and run by swift-argument-parser's
/// async `main()` (exit codes, help and error messages are the library's).
@main
extension ZRCControllerCommand {}
