#define _GNU_SOURCE
#include "CUDPShim.h"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>

_Static_assert(sizeof(cudp_datagram) == sizeof(struct iovec), "cudp_datagram mirrors struct iovec");

int cudp_sendmmsg(int fd, const cudp_datagram *datagrams, unsigned int count,
                  const struct sockaddr *address, socklen_t address_length, int flags) {
    if (count > CUDP_MAX_BATCH) count = CUDP_MAX_BATCH;
    struct iovec vectors[CUDP_MAX_BATCH];
    struct mmsghdr messages[CUDP_MAX_BATCH];
    memset(messages, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = (void *)datagrams[i].base;
        vectors[i].iov_len = datagrams[i].length;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
        messages[i].msg_hdr.msg_name = (void *)address;
        messages[i].msg_hdr.msg_namelen = address ? address_length : 0;
    }
    int sent;
    do {
        sent = sendmmsg(fd, messages, count, flags);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

int cudp_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}
