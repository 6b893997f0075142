import Foundation
import Testing
@testable import ZRCMQTT
import ZRCNetworking
import ZRCProtocol
import ZRCXTestSupport
import ZRCReach

/// The rendezvous client against a real Mosquitto on loopback, over TLS with certificates made
/// for the test: only the configured CA's broker is trusted (a certificate from another CA fails
/// before the client subscribes to anything), and a broker honouring the client's Maximum Packet
/// Size never delivers an oversized message.
@Suite(.serialized) struct MosquittoBrokerTests {
    /// A private CA, a broker certificate it signed for 127.0.0.1, another CA, and a Mosquitto
    /// with a TLS listener and a plain one, all in a temporary directory; `stop()` ends it.
    final class TLSBroker: Sendable {
        let directory: URL
        let tlsPort: UInt16
        let plainPort: UInt16
        let process: Process
        var log: String { (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? "" }
        var ca: String { directory.appendingPathComponent("ca.pem").path }
        var otherCA: String { directory.appendingPathComponent("other-ca.pem").path }

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("zrc-mqtt-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let dir = directory.path
            let script = """
                set -e
                cd '\(dir)'
                openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=zrc-test-ca -keyout ca.key -out ca.pem 2>/dev/null
                openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout other-ca.key -out other-ca.pem 2>/dev/null
                openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr 2>/dev/null
                printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext
                openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.pem 2>/dev/null
                """
            let made = try Self.run(["/bin/sh", "-c", script])
            guard made.status == 0 else { throw TestFailure("openssl could not make the test certificates: \(made.output)") }
            (tlsPort, plainPort) = (Self.freePort(), Self.freePort())
            let config = """
                per_listener_settings false
                allow_anonymous true
                user root
                persistence false
                log_dest file \(dir)/mosquitto.log
                log_type all
                listener \(tlsPort) 127.0.0.1
                cafile \(dir)/ca.pem
                certfile \(dir)/server.pem
                keyfile \(dir)/server.key
                listener \(plainPort) 127.0.0.1
                """
            try Data(config.utf8).write(to: directory.appendingPathComponent("mosquitto.conf"))
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
                throw TestFailure("/usr/sbin/mosquitto is missing: Tools/install-deps.sh --with-test installs it")
            }
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
            process.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = ContinuousClock.now + .seconds(30)
            while !(Self.listening(tlsPort) && Self.listening(plainPort)), ContinuousClock.now < deadline {
                guard process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            guard Self.listening(tlsPort), Self.listening(plainPort) else {
                stop()
                throw TestFailure("mosquitto did not start listening: \(log.suffix(600))")
            }
        }

        func stop() {
            if process.isRunning {
                // SIGKILL: Foundation's Process hands the child this thread's signal mask, in
                // which Swift's threads block SIGTERM.
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: directory)
        }

        static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: arguments[0])
            process.arguments = Array(arguments.dropFirst())
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        /// A port the kernel just handed out (free again once closed).
        static func freePort() -> UInt16 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            return UInt16(bigEndian: address.sin_port)
        }

        static func listening(_ port: UInt16) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
        }
    }

    static func url(_ text: String) throws -> ReachURL { try ReachURL(parsing: text, expecting: [.mqtt]) }

    /// The next message on `topic`, 30 s at most.
    static func next(_ client: any RendezvousBrokerClient, on topic: String) async -> BrokerMessage? {
        let waiter = Task { () -> BrokerMessage? in
            for await event in client.events {
                if case .message(let message) = event, message.topic == topic { return message }
            }
            return nil
        }
        let timer = Task {
            try? await Task.sleep(for: .seconds(30))
            waiter.cancel()
        }
        defer { timer.cancel() }
        return await waiter.value
    }

    @Test func overTLSWithTheRightCAMessagesGoBothWays() async throws {
        let broker = try await TLSBroker()
        defer { broker.stop() }
        let url = try Self.url("mqtts://127.0.0.1:\(broker.tlsPort)?ca=\(broker.ca)")
        let client = try await MosquittoBrokerMaker().connect(to: url, clientID: "zrc-test-tls", persistent: false, timeout: .seconds(20))
        try await client.setSubscriptions(["zrc/v1/in/tls"])
        try await client.publish(topic: "zrc/v1/in/tls", payload: Array("sealed".utf8), timeout: .seconds(20))
        let message = await Self.next(client, on: "zrc/v1/in/tls")
        #expect(message?.payload == Array("sealed".utf8))
        await client.close()
    }

    /// A broker whose certificate another CA signed (someone on the path playing the broker) is
    /// refused during the TLS handshake: the client never gets as far as subscribing.
    @Test func aCertificateFromAnotherCAFailsBeforeAnySubscribe() async throws {
        let broker = try await TLSBroker()
        defer { broker.stop() }
        let url = try Self.url("mqtts://127.0.0.1:\(broker.tlsPort)?ca=\(broker.otherCA)")
        let error = await #expect(throws: ReachError.self) {
            let client = try await MosquittoBrokerMaker().connect(to: url, clientID: "zrc-test-wrong-ca", persistent: false, timeout: .seconds(20))
            try await client.setSubscriptions(["zrc/v1/in/secret"])
            await client.close()
        }
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
        #expect(!broker.log.contains("SUBSCRIBE"), "the broker saw a subscription: \(broker.log.suffix(800))")
        #expect(!broker.log.contains("zrc-test-wrong-ca"), "the client's MQTT CONNECT reached the broker: \(broker.log.suffix(800))")
    }

    /// The client announces a Maximum Packet Size (MQTT 5): Mosquitto then never delivers a
    /// larger PUBLISH to it — the oversized one is dropped at the broker, the next one arrives.
    @Test func aBrokerHonouringTheMaximumNeverDeliversAnOversizedPublish() async throws {
        let broker = try await TLSBroker()
        defer { broker.stop() }
        let url = try Self.url("mqtt://127.0.0.1:\(broker.plainPort)")
        let reader = try await MosquittoBrokerMaker().connect(to: url, clientID: "zrc-test-reader", persistent: false, timeout: .seconds(20))
        try await reader.setSubscriptions(["zrc/v1/in/big"])
        let writer = try await MosquittoBrokerMaker().connect(to: url, clientID: "zrc-test-writer", persistent: false, timeout: .seconds(20))
        try await writer.publish(topic: "zrc/v1/in/big", payload: [UInt8](repeating: 0x41, count: 64 * 1024), timeout: .seconds(20))
        try await writer.publish(topic: "zrc/v1/in/big", payload: Array("small".utf8), timeout: .seconds(20))
        let message = await Self.next(reader, on: "zrc/v1/in/big")
        #expect(message?.payload == Array("small".utf8), "the small one arrives, after the big one was not sent")
        let client = try #require(reader as? MosquittoClient)
        #expect(client.oversizedMessages == 0, "the broker delivered an oversized PUBLISH")
        await writer.close()
        await reader.close()
    }

    /// A broker login over plain mqtt:// to another machine would travel in the clear: refused.
    @Test func aLoginOverPlainMQTTIsRefusedUnlessTheBrokerIsLocal() async throws {
        let remote = try Self.url("mqtt://zrc-host:secret@192.0.2.1:1883")
        let error = await #expect(throws: ReachError.self) {
            _ = try await MosquittoBrokerMaker().connect(to: remote, clientID: "x", persistent: false, timeout: .seconds(1))
        }
        #expect(error?.message.contains("mqtts://") == true && error?.message.contains("secret") == false, "\(String(describing: error))")
        #expect(throws: WireError.self) { try remote.requiringProtectedLogin() }
        #expect(throws: Never.self) { try Self.url("mqtts://zrc-host:secret@broker.example:8883").requiringProtectedLogin() }
        #expect(throws: Never.self) { try Self.url("mqtt://zrc-host:secret@127.0.0.1").requiringProtectedLogin() }
    }
}
