import Foundation
import Logging
import ZRCNetworking
import ZRCProtocol

/// A session waiting for the person at the host to accept it.
struct PendingApproval: Sendable {
    let sessionID: UInt64
    let controllerName: String
    let viewOnly: Bool
    /// Tells the session the answer (true: accepted).
    let answer: @Sendable (Bool) async -> Void
}

extension HostServer {
    /// Tells the indicator that the sessions changed (the newest list wins): the requests for
    /// approval, then the live sessions.
    func sessionsChanged() {
        guard configuration.indicator != nil else { return }
        let waiting = approvals.map { IndicatedSession(controllerName: $0.controllerName, viewOnly: $0.viewOnly, awaitingApproval: true) }
        let live = sessions.all.sorted { $0.id < $1.id }.map { entry in
            IndicatedSession(controllerName: entry.controllerName, viewOnly: entry.viewOnly,
                             arriving: (arrivals[entry.id] ?? [:]).sorted { $0.key < $1.key }.map(\.value))
        }
        indicatorUpdates.continuation.yield(waiting + live)
    }

    /// A session's upload `id` started, progressed or (nil) ended: the indicator says so.
    func fileArriving(sessionID: UInt64, id: UInt32, _ file: IndicatedSession.ArrivingFile?) {
        guard configuration.indicator != nil else { return }
        arrivals[sessionID, default: [:]][id] = file
        if arrivals[sessionID]?.isEmpty == true { arrivals[sessionID] = nil }
        sessionsChanged()
    }

    /// Keeps the indicator current, ends every session when the person at the host presses the
    /// combination and answers requests for approval; runs until the server stops.
    func runIndicator(_ indicator: any SessionIndicator) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await shown in self.indicatorUpdates.stream { await indicator.show(shown) }
                await indicator.stop()
            }
            group.addTask {
                for await request in indicator.requests {
                    switch request {
                    case .endAll: await self.endAllSessions()
                    case .accept: await self.answerOldestApproval(accepted: true)
                    case .refuse: await self.answerOldestApproval(accepted: false)
                    }
                }
            }
        }
    }

    /// A session asks the person at the host to accept it; `answer` is told once, unless the
    /// session withdraws first.
    func requestApproval(sessionID: UInt64, controllerName: String, viewOnly: Bool, answer: @escaping @Sendable (Bool) async -> Void) {
        approvals.append(PendingApproval(sessionID: sessionID, controllerName: controllerName, viewOnly: viewOnly, answer: answer))
        logger.notice("\(controllerName) asks to \(viewOnly ? "watch" : "control") the screen: waiting for the person at the host")
        sessionsChanged()
    }

    /// The session ended or stopped waiting (its deadline): its request goes.
    func withdrawApproval(sessionID: UInt64) {
        guard approvals.contains(where: { $0.sessionID == sessionID }) else { return }
        approvals.removeAll { $0.sessionID == sessionID }
        sessionsChanged()
    }

    private func answerOldestApproval(accepted: Bool) async {
        guard !approvals.isEmpty else { return }
        let request = approvals.removeFirst()
        logger.notice("the person at the host \(accepted ? "accepted" : "refused") the session of \(request.controllerName)")
        sessionsChanged()
        await request.answer(accepted)
    }

    /// The person at the host ended every session (the indicator's key), and refused every
    /// request for approval.
    func endAllSessions() async {
        let waiting = approvals
        approvals = []
        for request in waiting { await request.answer(false) }
        if !waiting.isEmpty { sessionsChanged() }
        let live = sessions.all
        for session in live {
            await session.connection.close(reason: .normal, text: "the person at the host ended every session")
        }
        if !live.isEmpty { logger.notice("the person at the host ended every session (\(live.count))") }
    }
}
