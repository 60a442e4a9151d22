// CUDPShim: the few Linux socket calls Swift's Glibc module does not export (they need _GNU_SOURCE):
// sendmmsg(2) batching (with UDP GSO coalescing) and eventfd(2) for waking the RTP I/O loop; epoll(7) for the shared
// sender loop is in CUDPEpoll.h. Nothing else belongs here.
#ifndef CUDPSHIM_H
#define CUDPSHIM_H

#include <stddef.h>
#include <sys/socket.h>

#include "CUDPEpoll.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Most datagrams one cudp_sendmmsg call takes (the Linux UIO_MAXIOV bound is far above; 64 keeps the stack small).
#define CUDP_MAX_BATCH 64

/// One outgoing datagram: a pointer into the caller's buffer and its length.
typedef struct cudp_datagram {
    const void *base;
    size_t length;
} cudp_datagram;

/// Sends up to CUDP_MAX_BATCH datagrams with one sendmmsg(2) call, all to `address` (NULL on a connected socket).
/// Returns the number sent (which may be fewer than `count`), or -1 with errno set when none was sent.
int cudp_sendmmsg(int fd, const cudp_datagram *datagrams, unsigned int count,
                  const struct sockaddr *address, socklen_t address_length, int flags);

/// Most segments one UDP GSO message carries (the kernel's UDP_MAX_SEGMENTS was 64 before Linux 6.x raised it).
#define CUDP_GSO_MAX_SEGMENTS 64
/// Most payload bytes one UDP GSO message carries: the whole must fit one IPv4/IPv6 packet's 16-bit length.
#define CUDP_GSO_MAX_BYTES 65000

/// Like cudp_sendmmsg, but runs of consecutive datagrams of one size (the last of a run may be shorter) go out as
/// one UDP GSO message each (UDP_SEGMENT, Linux >= 4.18): the datagrams on the wire are the same, but the stack
/// handles each run once, not once per datagram. Returns the number of datagrams sent (whole runs: a message is
/// sent or not), or -1 with errno when none was; EIO, EINVAL, ENOPROTOOPT or EOPNOTSUPP may mean the kernel or the
/// route cannot segment (no checksum offload, IPsec, a segment above the path MTU): send without it then.
int cudp_sendmmsg_segmented(int fd, const cudp_datagram *datagrams, unsigned int count,
                            const struct sockaddr *address, socklen_t address_length, int flags);

/// A non-blocking, close-on-exec eventfd(2); -1 with errno on failure.
int cudp_eventfd(void);

#ifdef __cplusplus
}
#endif

#endif
