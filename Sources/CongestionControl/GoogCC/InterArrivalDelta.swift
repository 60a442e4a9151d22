import MediaCore

/// Groups packets into send-time groups and gives the deltas between consecutive groups: how much later the second
/// group was sent, and how much later it arrived. libwebrtc's `InterArrivalDelta`
/// (modules/congestion_controller/goog_cc/inter_arrival_delta.cc), which feeds the trendline estimator.
///
/// A group is every packet sent within `sendTimeGroupLength` (5 ms, `kSendTimeGroupLength` in delay_based_bwe.cc)
/// of its first packet — roughly one video frame at the pacer's rate. A packet that arrives within 5 ms of the
/// group's last one (`kBurstDeltaThreshold`) and *earlier* than its send spacing predicts joins the group anyway
/// (the burst pre-filter: a radio link that delivered a batch at once), as long as the group stays within 100 ms
/// (`kMaxBurstDuration`). A packet sent before its group's first packet is reordered and ignored; three groups in a
/// row whose arrival went backwards (`kReorderedResetThreshold`), or an arrival clock that jumped 3 s against the
/// sender's (`kArrivalTimeOffsetThreshold`), reset the state.
public struct InterArrivalDelta: Sendable {
    /// libwebrtc's `kBurstDeltaThreshold`.
    public static let burstDeltaThreshold: Duration = .milliseconds(5)
    /// libwebrtc's `kMaxBurstDuration`.
    public static let maxBurstDuration: Duration = .milliseconds(100)
    /// libwebrtc's `kArrivalTimeOffsetThreshold`.
    public static let arrivalTimeOffsetThreshold: Duration = .seconds(3)
    /// libwebrtc's `kReorderedResetThreshold`.
    public static let reorderedResetThreshold = 3
    /// delay_based_bwe.cc's `kSendTimeGroupLength`.
    public static let defaultSendTimeGroupLength: Duration = .milliseconds(5)

    /// The deltas between two consecutive complete groups.
    public struct Deltas: Sendable, Hashable {
        /// Last send time of the group minus last send time of the one before.
        public var sendDelta: Duration
        /// Last arrival of the group minus last arrival of the one before (receiver's clock: only a difference).
        public var arrivalDelta: Duration
        /// Bytes of the group minus bytes of the one before.
        public var sizeDelta: Int
    }

    private struct SendTimeGroup: Sendable {
        var size = 0
        var firstSendTime: Instant
        var sendTime: Instant
        var firstArrival: Instant
        var completeTime: Instant
        var lastSystemTime: Instant
    }

    public let sendTimeGroupLength: Duration
    private var current: SendTimeGroup?
    private var previous: SendTimeGroup?
    private var consecutiveReorderedPackets = 0

    public init(sendTimeGroupLength: Duration = InterArrivalDelta.defaultSendTimeGroupLength) {
        self.sendTimeGroupLength = sendTimeGroupLength
    }

    /// Adds one packet (in arrival order); returns the deltas when it starts a new group and the two groups before
    /// it are complete. `systemTime` is the sender's time when the feedback was processed (to notice a receiver
    /// clock that jumped).
    public mutating func computeDeltas(sendTime: Instant, arrivalTime: Instant, systemTime: Instant, size: Int) -> Deltas? {
        var result: Deltas?
        guard var group = current else {
            current = SendTimeGroup(size: size, firstSendTime: sendTime, sendTime: sendTime, firstArrival: arrivalTime,
                                    completeTime: arrivalTime, lastSystemTime: systemTime)
            return nil
        }
        if group.firstSendTime > sendTime {
            return nil  // reordered packet
        }
        if startsNewGroup(group, arrivalTime: arrivalTime, sendTime: sendTime) {
            if let previous {
                let sendDelta = group.sendTime - previous.sendTime
                let arrivalDelta = group.completeTime - previous.completeTime
                let systemDelta = group.lastSystemTime - previous.lastSystemTime
                if arrivalDelta - systemDelta >= Self.arrivalTimeOffsetThreshold {
                    reset()  // the arrival clock jumped
                    return nil
                }
                if arrivalDelta < .zero {
                    // The group was reordered after it was timestamped at the receiver.
                    consecutiveReorderedPackets += 1
                    if consecutiveReorderedPackets >= Self.reorderedResetThreshold { reset() }
                    return nil
                }
                consecutiveReorderedPackets = 0
                result = Deltas(sendDelta: sendDelta, arrivalDelta: arrivalDelta, sizeDelta: group.size - previous.size)
            }
            previous = group
            group = SendTimeGroup(size: 0, firstSendTime: sendTime, sendTime: sendTime, firstArrival: arrivalTime,
                                  completeTime: arrivalTime, lastSystemTime: systemTime)
        } else {
            group.sendTime = max(group.sendTime, sendTime)
        }
        group.size += size
        group.completeTime = arrivalTime
        group.lastSystemTime = systemTime
        current = group
        return result
    }

    /// Forgets both groups (a stream timeout, a clock jump, persistent reordering).
    public mutating func reset() {
        consecutiveReorderedPackets = 0
        current = nil
        previous = nil
    }

    private func startsNewGroup(_ group: SendTimeGroup, arrivalTime: Instant, sendTime: Instant) -> Bool {
        if belongsToBurst(group, arrivalTime: arrivalTime, sendTime: sendTime) { return false }
        return sendTime - group.firstSendTime > sendTimeGroupLength
    }

    private func belongsToBurst(_ group: SendTimeGroup, arrivalTime: Instant, sendTime: Instant) -> Bool {
        let arrivalDelta = arrivalTime - group.completeTime
        let sendDelta = sendTime - group.sendTime
        if sendDelta == .zero { return true }
        let propagationDelta = arrivalDelta - sendDelta
        return propagationDelta < .zero && arrivalDelta <= Self.burstDeltaThreshold
            && arrivalTime - group.firstArrival < Self.maxBurstDuration
    }
}
