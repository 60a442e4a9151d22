#define _GNU_SOURCE
#include "CUDPShim.h"

#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <stdint.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103  /* linux/udp.h, Linux 4.18 */
#endif

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

int cudp_sendmmsg_segmented(int fd, const cudp_datagram *datagrams, unsigned int count,
                            const struct sockaddr *address, socklen_t address_length, int flags) {
    if (count > CUDP_MAX_BATCH) count = CUDP_MAX_BATCH;
    struct iovec vectors[CUDP_MAX_BATCH];
    struct mmsghdr messages[CUDP_MAX_BATCH];
    unsigned int runs[CUDP_MAX_BATCH];  // datagrams per message
    union {
        char bytes[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } controls[CUDP_MAX_BATCH];
    for (unsigned int i = 0; i < count; i++) {
        vectors[i].iov_base = (void *)datagrams[i].base;
        vectors[i].iov_len = datagrams[i].length;
    }
    unsigned int message_count = 0;
    for (unsigned int start = 0; start < count;) {
        // A run: datagrams of the first one's size, ended by a shorter one (the kernel's last segment) or a limit.
        size_t segment = datagrams[start].length, total = segment;
        unsigned int end = start + 1;
        while (end < count && end - start < CUDP_GSO_MAX_SEGMENTS && datagrams[end].length <= segment
               && total + datagrams[end].length <= CUDP_GSO_MAX_BYTES && datagrams[end - 1].length == segment) {
            total += datagrams[end].length;
            end++;
        }
        struct msghdr *header = &messages[message_count].msg_hdr;
        memset(&messages[message_count], 0, sizeof(struct mmsghdr));
        header->msg_iov = &vectors[start];
        header->msg_iovlen = end - start;
        header->msg_name = (void *)address;
        header->msg_namelen = address ? address_length : 0;
        if (end - start > 1 && segment > 0) {
            memset(&controls[message_count], 0, sizeof(controls[message_count]));
            header->msg_control = controls[message_count].bytes;
            header->msg_controllen = sizeof(controls[message_count].bytes);
            struct cmsghdr *control = CMSG_FIRSTHDR(header);
            control->cmsg_level = IPPROTO_UDP;
            control->cmsg_type = UDP_SEGMENT;
            control->cmsg_len = CMSG_LEN(sizeof(uint16_t));
            uint16_t size = (uint16_t)segment;
            memcpy(CMSG_DATA(control), &size, sizeof(size));
        }
        runs[message_count++] = end - start;
        start = end;
    }
    int sent;
    do {
        sent = sendmmsg(fd, messages, message_count, flags);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) return -1;
    int datagrams_sent = 0;
    for (int m = 0; m < sent; m++) datagrams_sent += (int)runs[m];
    return datagrams_sent;
}

int cudp_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}
