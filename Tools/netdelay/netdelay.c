// zrc-netdelay: holds every packet of an NFQUEUE queue for a fixed time, then accepts it — the
// network laboratory's added delay (this kernel has no netem). One per namespace, on its INPUT
// chain, so each direction of a veth pair gets half the round trip.
//
// Usage: zrc-netdelay QUEUE DELAY_MS
// Prints "ready" once bound. Packets keep their order (one delay for all, so due times only grow).
// Only metadata is copied from the kernel; verdicts are issued when due. A full backlog accepts
// packets at once rather than dropping them, and says so on stderr.
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#define BACKLOG 65536

struct held {
    uint32_t id;
    uint64_t due_us;
};

static struct held ring[BACKLOG];
static size_t head, count;
static uint64_t delay_us;
static struct nfq_q_handle *queue;

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int on_packet(struct nfq_q_handle *q, struct nfgenmsg *msg, struct nfq_data *data, void *context) {
    (void)msg;
    (void)context;
    struct nfqnl_msg_packet_hdr *header = nfq_get_msg_packet_hdr(data);
    if (header == NULL) return 0;
    uint32_t id = ntohl(header->packet_id);
    if (count == BACKLOG) {
        fprintf(stderr, "zrc-netdelay: backlog of %d packets full; accepting without delay\n", BACKLOG);
        return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
    }
    ring[(head + count) % BACKLOG] = (struct held){id, now_us() + delay_us};
    count++;
    return 0;
}

static void release_due(void) {
    uint64_t now = now_us();
    while (count > 0 && ring[head].due_us <= now) {
        nfq_set_verdict(queue, ring[head].id, NF_ACCEPT, 0, NULL);
        head = (head + 1) % BACKLOG;
        count--;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: zrc-netdelay QUEUE DELAY_MS\n");
        return 2;
    }
    char *end;
    long queue_number = strtol(argv[1], &end, 10);
    if (*end != '\0' || queue_number < 0 || queue_number > 65535) {
        fprintf(stderr, "zrc-netdelay: the queue number must be 0…65535\n");
        return 2;
    }
    double delay_ms = strtod(argv[2], &end);
    if (*end != '\0' || delay_ms < 0 || delay_ms > 10000) {
        fprintf(stderr, "zrc-netdelay: the delay must be 0…10000 ms\n");
        return 2;
    }
    delay_us = (uint64_t)(delay_ms * 1000.0);

    struct nfq_handle *handle = nfq_open();
    if (handle == NULL) {
        perror("zrc-netdelay: nfq_open (root and the nfnetlink_queue module are needed)");
        return 1;
    }
    queue = nfq_create_queue(handle, (uint16_t)queue_number, on_packet, NULL);
    if (queue == NULL) {
        perror("zrc-netdelay: nfq_create_queue (is another program bound to this queue?)");
        return 1;
    }
    if (nfq_set_mode(queue, NFQNL_COPY_META, 0) < 0) {
        perror("zrc-netdelay: nfq_set_mode");
        return 1;
    }
    nfq_set_queue_maxlen(queue, BACKLOG);
    int fd = nfq_fd(handle);
    // Room in the socket for a burst of packet notifications while earlier ones wait.
    nfnl_rcvbufsiz(nfq_nfnlh(handle), 64 * 1024 * 1024);
    printf("ready\n");
    fflush(stdout);

    char buffer[4096] __attribute__((aligned));
    for (;;) {
        release_due();
        int timeout_ms = -1;
        if (count > 0) {
            uint64_t now = now_us(), due = ring[head].due_us;
            timeout_ms = due > now ? (int)((due - now + 999) / 1000) : 0;
        }
        struct pollfd wanted = {.fd = fd, .events = POLLIN};
        int ready = poll(&wanted, 1, timeout_ms);
        if (ready < 0) {
            if (errno == EINTR) continue;
            perror("zrc-netdelay: poll");
            return 1;
        }
        if (ready > 0) {
            ssize_t length = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
            if (length >= 0) {
                nfq_handle_packet(handle, buffer, (int)length);
            } else if (errno == ENOBUFS) {
                fprintf(stderr, "zrc-netdelay: the kernel dropped queue notifications (ENOBUFS)\n");
            } else if (errno != EAGAIN && errno != EINTR) {
                perror("zrc-netdelay: recv");
                return 1;
            }
        }
    }
}
