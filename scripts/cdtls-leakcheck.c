// The CDTLS shim under AddressSanitizer, LeakSanitizer and UBSan (`make leakcheck`): the C code owns datagram queues,
// BIOs and OpenSSL objects, so it is checked in C, without Swift around it (the ASan build of the Swift tests would
// rebuild the whole package). Each round makes two certificates and two endpoints, runs a handshake in memory (one
// round in three loses 30 % of the datagrams, so retransmissions and their timers run), exports the SRTP keys, feeds
// garbage to a connected endpoint and to a fresh one, closes, and frees endpoints that still hold queued datagrams;
// set-ups that fail half-way (an MTU below OpenSSL's floor) free what they made.
// Any leak, memory error or undefined behaviour, or a handshake that does not finish, fails the run.
#include "CDTLS.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { ROUNDS = 60, STEPS = 1000 };

// Moves every queued datagram from `from` into `to` (unless the seeded generator drops it); 1 if any was queued.
static int pump(cdtls_endpoint *from, cdtls_endpoint *to, unsigned *seed, int drop_percent) {
    uint8_t buffer[2048];
    int moved = 0;
    cdtls_error error;
    long length;
    while ((length = cdtls_pull(from, buffer, sizeof buffer)) > 0) {
        moved = 1;
        if ((int)(rand_r(seed) % 100) < drop_percent) continue;
        cdtls_feed(to, buffer, (size_t)length);
        cdtls_step(to, &error);
    }
    return moved;
}

static void feed_garbage(cdtls_endpoint *endpoint, unsigned *seed, int count) {
    cdtls_error error;
    for (int i = 0; i < count; i++) {
        uint8_t junk[300];
        size_t length = 1 + rand_r(seed) % sizeof junk;
        for (size_t k = 0; k < length; k++) junk[k] = (uint8_t)rand_r(seed);
        junk[0] = (uint8_t)(20 + rand_r(seed) % 44);  // RFC 7983's DTLS range, as the demultiplexer passes it
        if (i % 2) { junk[0] = 23; if (length > 2) { junk[1] = 0xFE; junk[2] = 0xFD; } }
        cdtls_feed(endpoint, junk, length);
        cdtls_step(endpoint, &error);
    }
}

int main(void) {
    cdtls_error error;
    unsigned seed = 7;
    int connected = 0;
    for (int round = 0; round < ROUNDS; round++) {
        cdtls_certificate *first = cdtls_certificate_generate("first", 30, &error);
        cdtls_certificate *second = cdtls_certificate_generate("second", 30, &error);
        if (!first || !second) { fprintf(stderr, "certificate: %s\n", error.message); return 1; }
        cdtls_endpoint *client = cdtls_endpoint_new(first, 0, 1200, 20000, 40000, &error);
        cdtls_endpoint *server = cdtls_endpoint_new(second, 1, 1200, 20000, 40000, &error);
        if (!client || !server) { fprintf(stderr, "endpoint: %s\n", error.message); return 1; }
        cdtls_certificate_free(first);  // the endpoints hold their own references
        cdtls_certificate_free(second);
        cdtls_step(client, &error);
        int drop = round % 3 == 0 ? 30 : 0;
        for (int step = 0; step < STEPS; step++) {
            int moved = pump(client, server, &seed, drop) | pump(server, client, &seed, drop);
            if (cdtls_step(client, &error) == CDTLS_CONNECTED && cdtls_step(server, &error) == CDTLS_CONNECTED) break;
            if (!moved) {
                usleep(25000);  // OpenSSL's timer runs on the real clock
                cdtls_handle_timeout(client, &error);
                cdtls_handle_timeout(server, &error);
            }
        }
        if (cdtls_step(client, &error) == CDTLS_CONNECTED && cdtls_step(server, &error) == CDTLS_CONNECTED) {
            connected++;
            uint16_t profile;
            uint8_t material[60];
            if (!cdtls_export_srtp(client, &profile, material, sizeof material, &error)) {
                fprintf(stderr, "export: %s\n", error.message);
                return 1;
            }
            feed_garbage(server, &seed, 10);
            cdtls_close(client);
            pump(client, server, &seed, 0);
        }
        cdtls_certificate *third = cdtls_certificate_generate("third", 1, &error);
        cdtls_endpoint *fresh = third ? cdtls_endpoint_new(third, 1, 1200, 20000, 40000, &error) : NULL;
        if (!fresh) { fprintf(stderr, "fresh endpoint: %s\n", error.message); return 1; }
        feed_garbage(fresh, &seed, 20);
        // Failures half-way through set-up free what they made: an MTU below OpenSSL's floor fails after SSL_new.
        if (cdtls_endpoint_new(third, 0, 100, 20000, 40000, &error) != NULL || error.code != CDTLS_ERROR_CONFIGURATION ||
            cdtls_certificate_generate("", 30, &error) != NULL || error.code != CDTLS_ERROR_ARGUMENT) {
            fprintf(stderr, "a bad set-up was accepted\n");
            return 1;
        }
        cdtls_endpoint_free(fresh);
        cdtls_certificate_free(third);
        cdtls_endpoint_free(client);
        cdtls_endpoint_free(server);
    }
    printf("cdtls-leakcheck: %d of %d handshakes connected\n", connected, ROUNDS);
    return connected == ROUNDS ? 0 : 1;
}
