internal import CMosquitto
public import ZRCReach
public import ZRCProtocol

/// Rendezvous brokers over MQTT 5 with libmosquitto: its own network thread, automatic
/// reconnects with exponential backoff (1 s … 30 s) for persistent clients.
///
/// - `mqtts://` runs over TLS 1.2 or newer; the broker's certificate must chain to the system's
///   CAs, or only to the URL's `ca=` file, and name the broker's host: anyone else on the path can
///   neither read nor play the broker.
/// - CONNECT announces a Maximum Packet Size of `maximumPacketSize`: an honest broker then never
///   sends a larger packet (libmosquitto would otherwise allocate whatever length a broker
///   announces, up to 256 MiB, before this code sees the message).
/// - A login over plain `mqtt://` is refused unless the broker is on this machine.
public struct MosquittoBrokerMaker: RendezvousBrokerMaker {
    public init() {}

    public func connect(to url: ReachURL, clientID: String, persistent: Bool, timeout: Duration) async throws(ReachError)
        -> any RendezvousBrokerClient {
        let client = try MosquittoClient(url: url, clientID: clientID, persistent: persistent)
        do {
            try await client.start(timeout: timeout)
        } catch {
            await client.close()
            throw error
        }
        return client
    }
}

/// The largest MQTT packet a broker may send this client: a sealed rendezvous message (4 KiB)
/// with its topic and headers, and room to spare.
let maximumPacketSize: Int32 = 8192

/// libmosquitto, opened and initialised on first use (it is not linked: see CMosquitto); nil
/// when ready, else why it cannot be used.
let libraryFailure: String? = {
    var error = [CChar](repeating: 0, count: 256)
    guard zrc_mosquitto_load(&error, error.count) == 0 else { return String(cBuffer: error) }
    mosquitto_lib_init()
    return nil
}()
