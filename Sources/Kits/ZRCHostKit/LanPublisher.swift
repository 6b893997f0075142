import Logging
import ZRCNetworking
import ZRCProtocol
import ZRCReach

/// Publishes the host on the LAN as `_zrc._tcp` with TXT `v=1` and the day's hint (`LanHint`),
/// republishing when the day (and so the hint) changes. Without avahi-daemon it says so once
/// and carries on: TCP and the rendezvous do not need it.
struct LanPublisher: Sendable {
    let discovery: any LanDiscovery
    let name: String
    let port: UInt16
    let hostKey: NoisePublicKey
    let crypto: any NoiseCrypto
    let unixSeconds: @Sendable () -> UInt64
    let logger: Logger

    func run() async {
        var reported = false
        while !Task.isCancelled {
            let now = unixSeconds()
            let day = RendezvousTopics.day(unixSeconds: now)
            let txt = ["v": "1", LanHint.txtKey: LanHint.hint(hostKey: hostKey, day: day, crypto: crypto)]
            let publication: any LanPublication
            do {
                publication = try discovery.publish(name: name, port: port, txt: txt)
            } catch {
                if !reported { logger.notice("LAN discovery: \(error.message)") }
                reported = true
                try? await Task.sleep(for: .seconds(60))
                continue
            }
            let events = Task {
                for await event in publication.events {
                    switch event {
                    case .published(let published): logger.info("LAN discovery: published as `\(published)` (_zrc._tcp, port \(port))")
                    case .unavailable(let reason): logger.notice("LAN discovery unavailable: \(reason) (avahi-daemon running?); TCP and the rendezvous still work")
                    }
                }
            }
            // Until the next UTC midnight: then the hint changes.
            let untilTomorrow = (UInt64(day) + 1) * RendezvousTopics.secondsPerDay - now
            try? await Task.sleep(for: .seconds(Int64(untilTomorrow) + 1))
            await publication.stop()
            events.cancel()
        }
    }
}
