internal import CReach
import Foundation
import Synchronization
public import ZRCReach
import ZRCProtocol

/// LAN discovery through avahi-daemon (libavahi-client on CReach's GLib thread).
public struct AvahiDiscovery: LanDiscovery {
    public init() {}

    public func publish(_ service: LanService, name: String, port: UInt16, txt: [String: String]) throws(ReachError) -> any LanPublication {
        try AvahiPublication(service: service, name: name, port: port, txt: txt)
    }

    public func browse(_ service: LanService, for duration: Duration,
                       until enough: @escaping @Sendable ([LanHost]) -> Bool) async throws(ReachError) -> [LanHost] {
        let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let browser = AvahiBrowser(service: service, changed: changed)
        defer { browser.stop() }
        try browser.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in changes where enough(browser.hosts) { return }
            }
            group.addTask { try? await Task.sleep(for: duration) }
            await group.next()
            group.cancelAll()
        }
        if let failure = browser.failure, browser.hosts.isEmpty {
            throw ReachError(.misconfigured, "LAN discovery needs avahi-daemon: \(failure)")
        }
        return browser.hosts
    }
}

/// The callback's context: events from the GLib thread, collected under a lock.
final class MDNSBox: Sendable {
    struct Found: Sendable {
        var addresses: [String] = []
        var port: UInt16 = 0
        var txt: [String: String] = [:]
    }

    let state = Mutex<(found: [String: Found], order: [String], failure: String?)>(([:], [], nil))
    let events: AsyncStream<LanPublicationEvent>.Continuation?
    /// Told of every change to what was found (a browse's early stop).
    let changed: AsyncStream<Void>.Continuation?

    init(events: AsyncStream<LanPublicationEvent>.Continuation?, changed: AsyncStream<Void>.Continuation? = nil) {
        self.events = events
        self.changed = changed
    }

    func handle(event: Int32, name: String?, address: String?, port: UInt16, txt: String?) {
        switch Int(event) {
        case Int(ZRC_MDNS_FOUND):
            guard let name, let address else { return }
            var fields: [String: String] = [:]
            for line in (txt ?? "").split(separator: "\n") {
                let pair = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
            }
            state.withLock { state in
                if state.found[name] == nil { state.order.append(name) }
                var entry = state.found[name] ?? Found()
                if !entry.addresses.contains(address) {
                    // IPv4 first: link-local IPv6 needs its interface and is the last resort.
                    if address.contains(":") { entry.addresses.append(address) } else { entry.addresses.insert(address, at: 0) }
                }
                entry.port = port
                entry.txt = fields
                state.found[name] = entry
            }
            changed?.yield()
        case Int(ZRC_MDNS_REMOVED):
            guard let name else { return }
            state.withLock { state in
                state.found[name] = nil
                state.order.removeAll { $0 == name }
            }
        case Int(ZRC_MDNS_FAILED):
            state.withLock { $0.failure = name ?? "failed" }
            events?.yield(.unavailable(reason: name ?? "failed"))
        case Int(ZRC_MDNS_PUBLISHED):
            events?.yield(.published(name: name ?? ""))
        default:
            break
        }
    }
}

private let mdnsCallback: zrc_mdns_callback = { context, event, name, address, port, txt in
    guard let context else { return }
    Unmanaged<MDNSBox>.fromOpaque(context).takeUnretainedValue()
        .handle(event: event, name: name.map { String(cString: $0) }, address: address.map { String(cString: $0) }, port: port,
                txt: txt.map { String(cString: $0) })
}

/// One zrc_mdns publication or browser and the box its callbacks reach. Every zrc_mdns_* call
/// marshals onto the GLib thread and waits, and `stop` frees the C side exactly once (under the
/// lock), then lets the box go: no callback runs after zrc_mdns_free returns.
final class MDNSRegistration: Sendable {
    /// The C handle, safe to send for the reasons above.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let state: Mutex<(handle: Handle, box: Unmanaged<MDNSBox>)?>

    /// Starts what `make` creates with the box as callback context; `make` fills `error` when it fails.
    init(box: MDNSBox, what: String, _ make: (UnsafeMutableRawPointer, inout [CChar]) -> OpaquePointer?) throws(ReachError) {
        let context = Unmanaged.passRetained(box)
        var error = [CChar](repeating: 0, count: 160)
        guard let pointer = make(context.toOpaque(), &error) else {
            context.release()
            throw ReachError(.misconfigured, "cannot \(what): \(String(cBuffer: error))")
        }
        state = Mutex((Handle(pointer: pointer), context))
    }

    func stop() {
        guard let (handle, box) = state.withLock({ current in defer { current = nil }; return current }) else { return }
        zrc_mdns_free(handle.pointer)
        box.release()
    }

    deinit { stop() }
}

final class AvahiBrowser: Sendable {
    private let box: MDNSBox
    private let registration = Mutex<MDNSRegistration?>(nil)
    private let service: LanService

    init(service: LanService, changed: AsyncStream<Void>.Continuation) {
        self.service = service
        box = MDNSBox(events: nil, changed: changed)
    }

    func start() throws(ReachError) {
        let started = try MDNSRegistration(box: box, what: "browse the LAN") { [service] context, error in
            zrc_mdns_browse(service.rawValue, mdnsCallback, context, &error, error.count)
        }
        registration.withLock { $0 = started }
    }

    var hosts: [LanHost] {
        box.state.withLock { state in
            state.order.compactMap { name in
                state.found[name].map { LanHost(name: name, addresses: $0.addresses, port: $0.port, txt: $0.txt) }
            }
        }
    }

    var failure: String? { box.state.withLock { $0.failure } }

    func stop() { registration.withLock { $0 }?.stop() }
}

final class AvahiPublication: LanPublication, Sendable {
    let events: AsyncStream<LanPublicationEvent>
    private let continuation: AsyncStream<LanPublicationEvent>.Continuation
    private let registration: MDNSRegistration

    init(service: LanService, name: String, port: UInt16, txt: [String: String]) throws(ReachError) {
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
        let records = txt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let copies: [UnsafePointer<CChar>?] = records.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        registration = try MDNSRegistration(box: MDNSBox(events: continuation), what: "publish `\(name)` on the LAN") { context, error in
            zrc_mdns_publish(service.rawValue, Self.serviceName(name), port, copies, Int32(copies.count), mdnsCallback, context, &error, error.count)
        }
    }

    /// DNS-SD names are at most 63 bytes: whole characters up to that.
    static func serviceName(_ name: String) -> String {
        let result = name.prefix(utf8Bytes: 63)
        return result.isEmpty ? "zrc" : result
    }

    func stop() async {
        registration.stop()
        continuation.finish()
    }
}
