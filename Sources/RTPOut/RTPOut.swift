// RTPOut is the I/O edge of rtenc's RTP: UDP sockets (sendmmsg, GSO, epoll), the sender's and receiver's threads,
// SRTP through libsrtp2, and the `RTPSender`/`RTPReceiver` façades that drive the pure state machines of `RTP`
// (`RTPSendSession`, `RTPReceiveSession`). Everything of `RTP` is re-exported, so `import RTPOut` is all an app needs.
@_exported import RTP
