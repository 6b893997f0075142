import Foundation
import Logging
import ZRCNetworking
import ZRCProtocol

extension HostServer {
    /// Tells the indicator that the live sessions changed (the newest list wins).
    func sessionsChanged() {
        guard configuration.indicator != nil else { return }
        let shown = sessions.all.sorted { $0.id < $1.id }.map { IndicatedSession(controllerName: $0.controllerName, viewOnly: $0.viewOnly) }
        indicatorUpdates.continuation.yield(shown)
    }

    /// Keeps the indicator current and ends every session when the person at the host presses
    /// the combination; runs until the server stops.
    func runIndicator(_ indicator: any SessionIndicator) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await shown in self.indicatorUpdates.stream { await indicator.show(shown) }
                await indicator.stop()
            }
            group.addTask {
                for await _ in indicator.endRequests { await self.endAllSessions() }
            }
        }
    }

    /// The person at the host ended every session (the indicator's key).
    func endAllSessions() async {
        let live = sessions.all
        for session in live {
            await session.connection.close(reason: .normal, text: "the person at the host ended every session")
        }
        if !live.isEmpty { logger.notice("the person at the host ended every session (\(live.count))") }
    }
}
