import ArgumentParser
import Logging
import Testing
import ZRCStorage
import ZRCViewer
@testable import ZRCControllerCommands

/// `zrc-ctl`'s arguments parsed (and validated) the way the program parses them, without
/// running any subcommand.
@Suite("zrc-ctl arguments")
struct ControllerCommandParseTests {
    let root = ZRCControllerCommand.self

    @Test("no subcommand is the root, which shows the help; so are `input` and `clipboard` alone")
    func groupsAlone() {
        assertParse(root, [], as: ZRCControllerCommand.self)
        assertParse(root, ["input"], as: InputCommand.self)
        assertParse(root, ["clipboard"], as: ClipboardCommand.self)
    }

    @Test("each command line selects its subcommand", arguments: [
        (["pair"], "PairCommand"),
        (["devices"], "DevicesCommand"),
        (["forget", "desk"], "ForgetCommand"),
        (["ping", "desk"], "PingCommand"),
        (["view", "desk"], "ViewCommand"),
        (["screenshot", "desk", "desk.png"], "ScreenshotCommand"),
        (["input", "move", "desk", "1", "2"], "InputCommand.Move"),
        (["input", "click", "desk", "1", "2"], "InputCommand.Click"),
        (["input", "scroll", "desk", "1", "2", "3"], "InputCommand.Scroll"),
        (["input", "key", "desk", "Return"], "InputCommand.Key"),
        (["input", "type", "desk", "hi"], "InputCommand.TypeText"),
        (["clipboard", "get", "desk"], "ClipboardCommand.Get"),
        (["clipboard", "set", "desk"], "ClipboardCommand.Set"),
        (["identity"], "IdentityCommand"),
    ])
    func selectsSubcommand(_ arguments: [String], _ typeName: String) throws {
        let parsed = try root.parseAsRoot(arguments)
        #expect(String(reflecting: type(of: parsed)) == "ZRCControllerCommands." + typeName)
    }

    @Test("every subcommand takes the common options, and defaults to the keyring's `default` key", arguments: [
        ["pair"], ["devices"], ["forget", "desk"], ["ping", "desk"], ["view", "desk"], ["screenshot", "desk", "a.png"],
        ["input", "move", "desk", "1", "2"], ["input", "click", "desk", "1", "2"], ["input", "scroll", "desk", "1", "2", "3"],
        ["input", "key", "desk", "a"], ["input", "type", "desk", "a"], ["clipboard", "get", "desk"], ["clipboard", "set", "desk"],
        ["identity"],
    ])
    func commonOptions(_ arguments: [String]) throws {
        let defaults = try #require(try root.parseAsRoot(arguments) as? any ControllerOptionsCarrier).controllerOptions
        #expect(defaults.keyStore == nil)
        #expect(defaults.keyID == "default")
        #expect(defaults.logLevel == nil)

        let given = try root.parseAsRoot(arguments + ["--key-store", "file", "--key-id", "work", "--log-level", "trace"])
        let options = try #require(given as? any ControllerOptionsCarrier).controllerOptions
        #expect(options.keyStore == KeyStoreChoice.file)
        #expect(options.keyID == "work")
        #expect(options.logLevel == Logger.Level.trace)
    }

    @Test("pair: the invite comes from standard input; `-` (standard input, as before) is still taken")
    func pair() {
        assertParse(root, ["pair"], as: PairCommand.self) { pair in
            #expect(pair.invite == nil)
            #expect(pair.name == nil)
            #expect(pair.controllerName == nil)
            #expect(!pair.replace)
        }
        assertParse(root, ["pair", "--name", "desk", "--controller-name", "anna@laptop", "--replace"], as: PairCommand.self) { pair in
            #expect(pair.invite == nil)
            #expect(pair.name == "desk")
            #expect(pair.controllerName == "anna@laptop")
            #expect(pair.replace)
        }
        assertParse(root, ["pair", "-", "--name", "desk"], as: PairCommand.self) { pair in
            #expect(pair.invite == "-")
            #expect(pair.name == "desk")
        }
        assertParse(root, ["pair", "--name", "desk", "--"], as: PairCommand.self) { #expect($0.invite == nil) }
        // The code, like the invite, comes from the prompt or standard input.
        assertParse(root, ["pair", "--code", "--name", "desk"], as: PairCommand.self) { pair in
            #expect(pair.code)
            #expect(pair.invite == nil)
        }
    }

    @Test("pair: an invite given as an argument is refused, whatever it looks like", arguments: [
        ["pair", "zrc1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
        ["pair", "--name", "desk", "zrc1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
        ["pair", "--name", "desk", "--", "not-even-an-invite"],
    ])
    func pairRefusesInviteArgument(_ arguments: [String]) {
        assertParseFailure(root, arguments, message: PairCommand.inviteInArgumentsRefusal)
        #expect(PairCommand.inviteInArgumentsRefusal.hasPrefix("the invite is not taken as an argument"))
    }

    @Test("devices: defaults and every option")
    func devices() {
        assertParse(root, ["devices"], as: DevicesCommand.self) { devices in
            #expect(!devices.scan)
            #expect(devices.scanTime == "2s")
            #expect(!devices.json)
        }
        assertParse(root, ["devices", "--scan", "--scan-time", "500ms", "--json"], as: DevicesCommand.self) { devices in
            #expect(devices.scan)
            #expect(devices.scanTime == "500ms")
            #expect(devices.json)
        }
    }

    @Test("forget: the host's name")
    func forget() {
        assertParse(root, ["forget", "desk"], as: ForgetCommand.self) { #expect($0.name == "desk") }
    }

    @Test("ping: defaults and every option")
    func ping() {
        assertParse(root, ["ping", "desk"], as: PingCommand.self) { ping in
            #expect(ping.name == "desk")
            #expect(ping.count == 4)
            #expect(ping.interval == "1s")
        }
        assertParse(root, ["ping", "desk", "-c", "10", "--interval", "200ms"], as: PingCommand.self) { ping in
            #expect(ping.count == 10)
            #expect(ping.interval == "200ms")
        }
        assertParse(root, ["ping", "--count", "10000", "--interval", "0", "desk"], as: PingCommand.self) { ping in
            #expect(ping.name == "desk")
            #expect(ping.count == 10_000)
            #expect(ping.interval == "0")
        }
    }

    @Test("view: defaults")
    func viewDefaults() {
        assertParse(root, ["view", "desk"], as: ViewCommand.self) { view in
            #expect(view.name == "desk")
            #expect(view.renderer == nil)
            #expect(!view.viewOnly)
            #expect(view.maxFPS == 60)
            #expect(view.probeTimeout == "0.8s")
            #expect(!view.fullResolution)
            #expect(!view.noClipboard)
            #expect(!view.clipboardFromHost)
            #expect(!view.web)
            #expect(view.listen == "127.0.0.1:0")
            #expect(!view.noOpen)
        }
    }

    @Test("view: in the terminal, every option")
    func viewTerminal() {
        assertParse(root, ["view", "desk", "--renderer", "sixel", "--view-only", "--max-fps", "240", "--probe-timeout", "2s",
                           "--full-resolution", "--clipboard-from-host"], as: ViewCommand.self) { view in
            #expect(view.renderer == RendererKind.sixel)
            #expect(view.viewOnly)
            #expect(view.maxFPS == 240)
            #expect(view.probeTimeout == "2s")
            #expect(view.fullResolution)
            #expect(view.clipboardFromHost)
            #expect(!view.noClipboard)
        }
        assertParse(root, ["view", "desk", "--renderer", "kitty", "--no-clipboard", "--max-fps", "1"], as: ViewCommand.self) { view in
            #expect(view.renderer == RendererKind.kitty)
            #expect(view.noClipboard)
            #expect(view.maxFPS == 1)
        }
    }

    @Test("view --web: a loopback address only", arguments: ["127.0.0.1:8080", "[::1]:8080", "localhost:9000", "127.0.0.2:0", "8080"])
    func viewWeb(_ listen: String) {
        assertParse(root, ["view", "desk", "--web", "--listen", listen, "--no-open"], as: ViewCommand.self) { view in
            #expect(view.web)
            #expect(view.listen == listen)
            #expect(view.noOpen)
        }
    }

    @Test("app: a loopback address, opened or not")
    func app() {
        assertParse(root, ["app"], as: AppCommand.self) { app in
            #expect(app.listen == "127.0.0.1:0")
            #expect(!app.noOpen)
        }
        assertParse(root, ["app", "--listen", "[::1]:7000", "--no-open"], as: AppCommand.self) { app in
            #expect(app.listen == "[::1]:7000")
            #expect(app.noOpen)
        }
    }

    @Test("screenshot: a .png, .jpg or .jpeg file, and a timeout")
    func screenshot() {
        assertParse(root, ["screenshot", "desk", "desk.png"], as: ScreenshotCommand.self) { shot in
            #expect(shot.name == "desk")
            #expect(shot.file == "desk.png")
            #expect(shot.timeout == nil)
        }
        assertParse(root, ["screenshot", "desk", "/tmp/Shot.JPEG", "--timeout", "30s"], as: ScreenshotCommand.self) { shot in
            #expect(shot.file == "/tmp/Shot.JPEG")
            #expect(shot.timeout == "30s")
        }
        assertParse(root, ["screenshot", "desk", "shot.jpg"], as: ScreenshotCommand.self) { #expect($0.file == "shot.jpg") }
    }

    @Test("input: move, click, scroll, key, type")
    func input() {
        assertParse(root, ["input", "move", "desk", "640", "400"], as: InputCommand.Move.self) { move in
            #expect(move.target.name == "desk")
            #expect(move.x == 640)
            #expect(move.y == 400)
        }
        assertParse(root, ["input", "click", "desk", "1", "2"], as: InputCommand.Click.self) { click in
            #expect(click.x == 1)
            #expect(click.y == 2)
            #expect(click.button == 1)
        }
        assertParse(root, ["input", "click", "desk", "1", "2", "--button", "3"], as: InputCommand.Click.self) { #expect($0.button == 3) }
        assertParse(root, ["input", "scroll", "desk", "10", "20", "5"], as: InputCommand.Scroll.self) { scroll in
            #expect(scroll.x == 10)
            #expect(scroll.y == 20)
            #expect(scroll.dy == 5)
            #expect(scroll.dx == 0)
        }
        assertParse(root, ["input", "key", "desk", "ctrl+alt+t"], as: InputCommand.Key.self) { #expect($0.combo == "ctrl+alt+t") }
        assertParse(root, ["input", "key", "desk", "shift+F5"], as: InputCommand.Key.self) { #expect($0.combo == "shift+F5") }
        assertParse(root, ["input", "type", "desk", "héllo ✓"], as: InputCommand.TypeText.self) { #expect($0.text == "héllo ✓") }
    }

    @Test("input scroll: negative steps (up, left) go after `--`, or attached with `=`")
    func inputScrollNegative() {
        assertParse(root, ["input", "scroll", "desk", "10", "20", "--", "-3"], as: InputCommand.Scroll.self) { #expect($0.dy == -3) }
        assertParse(root, ["input", "scroll", "desk", "10", "20", "1", "--dx=-2"], as: InputCommand.Scroll.self) { scroll in
            #expect(scroll.dy == 1)
            #expect(scroll.dx == -2)
        }
    }

    @Test("clipboard: get and set, of the clipboard or PRIMARY")
    func clipboard() {
        assertParse(root, ["clipboard", "get", "desk"], as: ClipboardCommand.Get.self) { get in
            #expect(get.target.name == "desk")
            #expect(!get.target.primary)
            #expect(get.target.timeout == "10s")
        }
        assertParse(root, ["clipboard", "set", "desk", "--primary", "--timeout", "3s"], as: ClipboardCommand.Set.self) { set in
            #expect(set.target.name == "desk")
            #expect(set.target.primary)
            #expect(set.target.timeout == "3s")
        }
    }

    @Test("identity: --json")
    func identity() {
        assertParse(root, ["identity"], as: IdentityCommand.self) { #expect(!$0.json) }
        assertParse(root, ["identity", "--json"], as: IdentityCommand.self) { #expect($0.json) }
    }

    @Test("refused before anything runs (exit 64)", arguments: [
        // Unknown subcommands, flags and surplus arguments.
        (["bogus"], "Unexpected argument 'bogus'"),
        (["devices", "--bogus"], "Unknown option '--bogus'"),
        (["identity", "extra"], "Unexpected argument 'extra'"),
        (["input", "wiggle", "desk"], "2 unexpected arguments: 'wiggle', 'desk'"),
        // Missing arguments and values.
        (["ping"], "Missing expected argument '<name>'"),
        (["forget"], "Missing expected argument '<name>'"),
        (["screenshot", "desk"], "Missing expected argument '<file>'"),
        (["input", "move", "desk", "1"], "Missing expected argument '<y>'"),
        (["input", "scroll", "desk", "1", "2", "-3"], "Missing expected argument '<dy>'"),
        (["input", "type"], "Missing expected argument '<name>'"),
        (["clipboard", "set"], "Missing expected argument '<name>'"),
        (["pair", "--controller-name"], "Missing value for '--controller-name <controller-name>'"),
        // Values of the wrong type or out of range.
        (["ping", "desk", "--count", "x"], "The value 'x' is invalid for '--count <count>'"),
        (["ping", "desk", "-c", "0"], "--count must be between 1 and 10000"),
        (["ping", "desk", "--count", "10001"], "--count must be between 1 and 10000"),
        (["ping", "desk", "--interval", "often"], "--interval `often` is not a duration (e.g. 1s, 0.2s, 200ms)"),
        (["devices", "--scan-time", "90s"], "--scan-time `90s` is not a duration between 0.1s and 60s"),
        (["devices", "--scan", "--scan-time", "50ms"], "--scan-time `50ms` is not a duration between 0.1s and 60s"),
        (["view", "desk", "--renderer", "ascii"],
         "The value 'ascii' is invalid for '--renderer <renderer>'. Please provide one of 'kitty', 'sixel' or 'symbols'."),
        (["view", "desk", "--max-fps", "0"], "--max-fps must be between 1 and 240"),
        (["view", "desk", "--max-fps", "241"], "--max-fps must be between 1 and 240"),
        (["view", "desk", "--probe-timeout", "2m"], "--probe-timeout `2m` is not a duration of at most 60 s (e.g. 0.8s, 2s)"),
        (["view", "desk", "--web", "--listen", "0.0.0.0:80"],
         "--listen `0.0.0.0:80` is not a loopback address and port (127.0.0.1:PORT, [::1]:PORT, localhost:PORT): the page is never served to other machines"),
        (["screenshot", "desk", "shot.gif"], "shot.gif: the file must end in .png, .jpg or .jpeg"),
        (["screenshot", "desk", "a.png", "--timeout", "0s"], "--timeout `0s` is not a duration (e.g. 10s, 1.5m)"),
        (["input", "click", "desk", "1", "2", "--button", "4"], "--button must be 1, 2 or 3"),
        (["input", "move", "desk", "99999999999", "1"], "The value '99999999999' is invalid for '<x>'"),
        (["input", "key", "desk", "ctrl+nosuchkey"], "`nosuchkey` in `ctrl+nosuchkey` is not a key name (try a character, Return, Tab, Escape, F1…)"),
        (["clipboard", "get", "desk", "--timeout", "never"], "--timeout `never` is not a duration (e.g. 10s, 1.5m)"),
        (["pair", "--name", " desk"], "--name: a name must not start or end with a space"),
        (["pair", "--name", String(repeating: "n", count: 65)], "--name: a name must be at most 64 characters (256 bytes)"),
        (["pair", "--controller-name", "anna\u{202E}"],
         "--controller-name: a name must not contain control, formatting, bidirectional or invisible characters"),
        // Options that exclude or need each other.
        (["view", "desk", "--no-clipboard", "--clipboard-from-host"], "--no-clipboard and --clipboard-from-host contradict each other"),
        (["view", "desk", "--no-open"], "--listen and --no-open go with --web"),
        (["app", "--listen", "192.0.2.1:8080"],
         "--listen `192.0.2.1:8080` is not a loopback address and port (127.0.0.1:PORT, [::1]:PORT, localhost:PORT): the app is never served to other machines"),
        (["view", "desk", "--listen", "127.0.0.1:8080"], "--listen and --no-open go with --web"),
    ])
    func refused(_ arguments: [String], _ message: String) {
        assertParseFailure(root, arguments, message: message)
    }
}

/// The subcommands that take `ControllerOptions`, seen alike.
protocol ControllerOptionsCarrier { var controllerOptions: ControllerOptions { get } }
extension PairCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
extension DevicesCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
extension ForgetCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
extension PingCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
extension ViewCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
extension ScreenshotCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
extension InputCommand.Move: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension InputCommand.Click: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension InputCommand.Scroll: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension InputCommand.Key: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension InputCommand.TypeText: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension ClipboardCommand.Get: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension ClipboardCommand.Set: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { target.options } }
extension IdentityCommand: ControllerOptionsCarrier { var controllerOptions: ControllerOptions { options } }
