#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

// The write side: OpenSSL writes each DTLS record with one BIO_write; each becomes one datagram, so record
// boundaries survive without a datagram BIO (BIO_s_dgram_mem came only with OpenSSL 3.2).

static int queue_write(BIO *bio, const char *data, int length) {
    cdtls_endpoint *endpoint = BIO_get_data(bio);
    if (endpoint == NULL || length < 0) return -1;
    if (endpoint->queued >= MAX_QUEUED_DATAGRAMS) {
        ERR_raise_data(ERR_LIB_BIO, ERR_R_BIO_LIB, "more than %d outgoing datagrams not pulled", MAX_QUEUED_DATAGRAMS);
        return -1;
    }
    struct queued_datagram *datagram = malloc(sizeof *datagram + (size_t)length);
    if (datagram == NULL) return -1;
    datagram->next = NULL;
    datagram->length = (size_t)length;
    memcpy(datagram->bytes, data, (size_t)length);
    if (endpoint->tail) endpoint->tail->next = datagram; else endpoint->head = datagram;
    endpoint->tail = datagram;
    endpoint->queued += 1;
    return length;
}

static long queue_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio; (void)number; (void)pointer;
    switch (command) {
    case BIO_CTRL_FLUSH: return 1;         // every write is already a datagram
    case BIO_CTRL_DGRAM_QUERY_MTU: return 0;  // the MTU is set, not queried (SSL_OP_NO_QUERY_MTU)
    case BIO_CTRL_WPENDING:
    case BIO_CTRL_PENDING: return 0;
    default: return 0;
    }
}

static int queue_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static BIO_METHOD *queue_method;  // lives for the process, like OpenSSL's own methods
static pthread_once_t queue_method_once = PTHREAD_ONCE_INIT;

static void make_queue_method(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rtenc datagram queue");
    if (method == NULL) return;
    BIO_meth_set_write(method, queue_write);
    BIO_meth_set_ctrl(method, queue_ctrl);
    BIO_meth_set_create(method, queue_create);
    queue_method = method;
}

BIO_METHOD *cdtls_datagram_queue_method(void) {
    pthread_once(&queue_method_once, make_queue_method);
    return queue_method;
}

size_t cdtls_next_datagram_length(const cdtls_endpoint *endpoint) {
    return endpoint->head ? endpoint->head->length : 0;
}

long cdtls_pull(cdtls_endpoint *endpoint, uint8_t *buffer, size_t capacity) {
    struct queued_datagram *datagram = endpoint->head;
    if (datagram == NULL) return 0;
    if (datagram->length > capacity) return -1;
    memcpy(buffer, datagram->bytes, datagram->length);
    long length = (long)datagram->length;
    endpoint->head = datagram->next;
    if (endpoint->head == NULL) endpoint->tail = NULL;
    endpoint->queued -= 1;
    free(datagram);
    return length;
}

void cdtls_datagram_queue_clear(cdtls_endpoint *endpoint) {
    struct queued_datagram *datagram = endpoint->head;
    while (datagram) {
        struct queued_datagram *next = datagram->next;
        free(datagram);
        datagram = next;
    }
    endpoint->head = endpoint->tail = NULL;
    endpoint->queued = 0;
}
