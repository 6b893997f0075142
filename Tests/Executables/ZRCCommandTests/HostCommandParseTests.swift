import ArgumentParser
import Logging
import Testing
import ZRCHostKit
import ZRCStorage
@testable import ZRCHostCommands

/// `zrc-host`'s arguments parsed (and validated) the way the program parses them, without
/// running any subcommand.
@Suite("zrc-host arguments")
struct HostCommandParseTests {
    let root = ZRCHostCommand.self

    @Test("no subcommand is the root, which shows the help")
    func rootAlone() {
        assertParse(root, [], as: ZRCHostCommand.self)
    }

    @Test("each command line selects its subcommand", arguments: [
        (["serve"], "ServeCommand"),
        (["pair"], "PairCommand"),
        (["controllers"], "ControllersCommand.List"),
        (["controllers", "list"], "ControllersCommand.List"),
        (["controllers", "revoke", "anna@laptop"], "ControllersCommand.Revoke"),
        (["sessions"], "SessionsCommand.List"),
        (["sessions", "list"], "SessionsCommand.List"),
        (["sessions", "end", "7"], "SessionsCommand.End"),
        (["identity"], "IdentityCommand"),
    ])
    func selectsSubcommand(_ arguments: [String], _ typeName: String) throws {
        let parsed = try root.parseAsRoot(arguments)
        #expect(String(reflecting: type(of: parsed)) == "ZRCHostCommands." + typeName)
    }

    @Test("every subcommand takes the common options, and defaults to the keyring's `default` key", arguments: [
        ["serve"], ["pair"], ["controllers"], ["controllers", "list"], ["controllers", "revoke", "anna"], ["sessions"],
        ["sessions", "list"], ["sessions", "end", "1"], ["identity"],
    ])
    func commonOptions(_ arguments: [String]) throws {
        let defaults = try #require(try root.parseAsRoot(arguments) as? any HostOptionsCarrier).hostOptions
        #expect(defaults.keyStore == nil)
        #expect(defaults.keyID == "default")
        #expect(defaults.logLevel == nil)

        let given = try root.parseAsRoot(arguments + ["--key-store", "file", "--key-id", "kiosk", "--log-level", "debug"])
        let options = try #require(given as? any HostOptionsCarrier).hostOptions
        #expect(options.keyStore == KeyStoreChoice.file)
        #expect(options.keyID == "kiosk")
        #expect(options.logLevel == Logger.Level.debug)
    }

    @Test("serve: defaults")
    func serveDefaults() {
        assertParse(root, ["serve"], as: ServeCommand.self) { serve in
            #expect(serve.listen == nil)
            #expect(serve.hostName == nil)
            #expect(serve.advertise == [])
            #expect(serve.display == nil)
            #expect(serve.monitor == nil)
            #expect(serve.policy == SessionPolicy.viewOnly)
            #expect(!serve.noClipboard)
            #expect(!serve.virtual)
            #expect(serve.size == nil)
            #expect(!serve.approve)
        }
    }

    @Test("serve: every option")
    func serveOptions() {
        assertParse(root, ["serve", "--listen", "[::]:7421", "--host-name", "Desk 2", "--advertise", "192.0.2.7",
                           "--advertise", "[2001:db8::1]:7422", "--display", ":1", "--monitor", "HDMI-1", "--policy", "refuse",
                           "--no-clipboard", "--approve"], as: ServeCommand.self) { serve in
            #expect(serve.listen == "[::]:7421")
            #expect(serve.hostName == "Desk 2")
            #expect(serve.advertise == ["192.0.2.7", "[2001:db8::1]:7422"])
            #expect(serve.display == ":1")
            #expect(serve.monitor == "HDMI-1")
            #expect(serve.policy == SessionPolicy.refuse)
            #expect(serve.noClipboard)
            #expect(serve.approve)
            #expect(!serve.virtual)
        }
        assertParse(root, ["serve", "--listen", "127.0.0.1:0"], as: ServeCommand.self) { #expect($0.listen == "127.0.0.1:0") }
    }

    @Test("serve: a virtual desktop, with or without a size", arguments: [
        (["--virtual"], nil),
        (["--virtual", "--size", "1280x800"], "1280x800"),
        (["--size", "64X64", "--virtual"], "64X64"),
    ] as [([String], String?)])
    func serveVirtual(_ arguments: [String], _ size: String?) {
        assertParse(root, ["serve"] + arguments, as: ServeCommand.self) { serve in
            #expect(serve.virtual)
            #expect(serve.display == nil)
            #expect(serve.size == size)
        }
    }

    @Test("serve: --size as width and height", arguments: [
        ("1920x1080", 1920, 1080), ("64X64", 64, 64), ("8192x4096", 8192, 4096),
        ("63x100", nil, nil), ("100x8193", nil, nil), ("8192x8192", nil, nil), ("1920*1080", nil, nil), ("x", nil, nil), ("1920x", nil, nil),
    ] as [(String, Int?, Int?)])
    func serveSize(_ text: String, _ width: Int?, _ height: Int?) {
        let size = ServeCommand.parseSize(text)
        #expect(size?.width == width)
        #expect(size?.height == height)
    }

    @Test("pair: defaults and every option")
    func pair() {
        assertParse(root, ["pair"], as: PairCommand.self) { pair in
            #expect(pair.lifetime == nil)
            #expect(pair.addresses == [])
            #expect(!pair.json)
        }
        assertParse(root, ["pair", "--lifetime", "90s", "--address", "192.0.2.7", "--address", "desk.example:7420", "--json"],
                    as: PairCommand.self) { pair in
            #expect(pair.lifetime == "90s")
            #expect(pair.addresses == ["192.0.2.7", "desk.example:7420"])
            #expect(pair.json)
        }
    }

    @Test("pair: an invite lives 30 s to 24 h", arguments: ["30s", "10m", "2h", "24h"])
    func pairLifetime(_ lifetime: String) {
        assertParse(root, ["pair", "--lifetime", lifetime], as: PairCommand.self) { #expect($0.lifetime == lifetime) }
    }

    @Test("pair --code: a code to read out, for lasting or one-session access")
    func pairCode() {
        assertParse(root, ["pair", "--code"], as: PairCommand.self) { pair in
            #expect(pair.code)
            #expect(!pair.temporary)
        }
        assertParse(root, ["pair", "--code", "--temporary", "--lifetime", "1h", "--json"], as: PairCommand.self) { pair in
            #expect(pair.code && pair.temporary && pair.json)
            #expect(pair.lifetime == "1h")
        }
    }

    @Test("pair --code: what goes with invites only, and lifetimes outside 1 min to 1 h, are refused", arguments: [
        (["pair", "--temporary"], "--temporary goes with --code"),
        (["pair", "--code", "--address", "192.0.2.7"], "--address goes with invites, not --code: a code's host tells its own addresses"),
        (["pair", "--code", "--lifetime", "2h"], "--lifetime of a code must be between 1 min and 1 h"),
        (["pair", "--code", "--lifetime", "30s"], "--lifetime of a code must be between 1 min and 1 h"),
    ])
    func pairCodeRefusals(_ arguments: [String], _ message: String) {
        assertParseFailure(root, arguments, message: message)
    }

    @Test("controllers: list (the default) and revoke")
    func controllers() {
        assertParse(root, ["controllers", "--json"], as: ControllersCommand.List.self) { #expect($0.json) }
        assertParse(root, ["controllers", "list"], as: ControllersCommand.List.self) { #expect(!$0.json) }
        assertParse(root, ["controllers", "revoke", "anna@laptop"], as: ControllersCommand.Revoke.self) { #expect($0.name == "anna@laptop") }
    }

    @Test("sessions: list (the default) and end")
    func sessions() {
        assertParse(root, ["sessions", "--json"], as: SessionsCommand.List.self) { #expect($0.json) }
        assertParse(root, ["sessions", "list"], as: SessionsCommand.List.self) { #expect(!$0.json) }
        assertParse(root, ["sessions", "end", "18446744073709551615"], as: SessionsCommand.End.self) { #expect($0.id == UInt64.max) }
    }

    @Test("identity: --json")
    func identity() {
        assertParse(root, ["identity"], as: IdentityCommand.self) { #expect(!$0.json) }
        assertParse(root, ["identity", "--json"], as: IdentityCommand.self) { #expect($0.json) }
    }

    @Test("refused before anything runs (exit 64)", arguments: [
        // Unknown subcommands, flags and surplus arguments.
        (["bogus"], "Unexpected argument 'bogus'"),
        (["serve", "--bogus"], "Unknown option '--bogus'"),
        (["identity", "extra"], "Unexpected argument 'extra'"),
        (["controllers", "bogus"], "Unexpected argument 'bogus'"),
        (["pair", "--json=yes"], "The option '--json' does not take any value, but 'yes' was specified."),
        // Missing arguments and values.
        (["controllers", "revoke"], "Missing expected argument '<name>'"),
        (["sessions", "end"], "Missing expected argument '<id>'"),
        (["sessions", "end", "-1"], "Missing expected argument '<id>'"),
        (["serve", "--host-name"], "Missing value for '--host-name <host-name>'"),
        // Values of the wrong type or out of range.
        (["sessions", "end", "abc"], "The value 'abc' is invalid for '<id>'"),
        (["serve", "--policy", "bogus"], "The value 'bogus' is invalid for '--policy <policy>'. Please provide one of 'view-only' and 'refuse'."),
        (["identity", "--key-store", "vault"],
         "The value 'vault' is invalid for '--key-store <key-store>'. Please provide one of 'keyring' and 'file'."),
        (["identity", "--log-level", "loud"], """
            The value 'loud' is invalid for '--log-level <log-level>'. Please provide one of the following:
              - trace
              - debug
              - info
              - notice
              - warning
              - error
              - critical
            """),
        (["serve", "--listen", "nope"], "--listen `nope` is not host:port (IPv6 as [addr]:port)"),
        (["serve", "--listen", "127.0.0.1:70000"], "--listen `127.0.0.1:70000` is not host:port (IPv6 as [addr]:port)"),
        (["serve", "--advertise", "::::"], "--advertise `::::` is not an address"),
        (["serve", "--host-name", " desk"], "--host-name: a name must not start or end with a space"),
        (["serve", "--host-name", "desk\u{1B}[2J"], "--host-name: a name must not contain control, formatting, bidirectional or invisible characters"),
        (["serve", "--virtual", "--size", "10x10"], "--size `10x10` is not WIDTHxHEIGHT with sides 64…8192, e.g. 1920x1080"),
        (["pair", "--lifetime", "soon"], "--lifetime `soon` is not a duration (e.g. 90s, 10m, 2h)"),
        (["pair", "--lifetime", "29s"], "--lifetime must be between 30 s and 24 h"),
        (["pair", "--lifetime", "25h"], "--lifetime must be between 30 s and 24 h"),
        // Options that exclude or need each other.
        (["serve", "--virtual", "--display", ":1"], "--virtual starts a display of its own; leave out --display"),
        (["serve", "--size", "800x600"], "--size is the size of the --virtual desktop; add --virtual"),
        (["serve", "--approve", "--no-indicator"], "--approve asks in the session indicator; leave out --no-indicator"),
    ])
    func refused(_ arguments: [String], _ message: String) {
        assertParseFailure(root, arguments, message: message)
    }
}

/// The subcommands that take `HostOptions`, seen alike.
protocol HostOptionsCarrier { var hostOptions: HostOptions { get } }
extension ServeCommand: HostOptionsCarrier { var hostOptions: HostOptions { options } }
extension PairCommand: HostOptionsCarrier { var hostOptions: HostOptions { options } }
extension ControllersCommand.List: HostOptionsCarrier { var hostOptions: HostOptions { options } }
extension ControllersCommand.Revoke: HostOptionsCarrier { var hostOptions: HostOptions { options } }
extension SessionsCommand.List: HostOptionsCarrier { var hostOptions: HostOptions { options } }
extension SessionsCommand.End: HostOptionsCarrier { var hostOptions: HostOptions { options } }
extension IdentityCommand: HostOptionsCarrier { var hostOptions: HostOptions { options } }
