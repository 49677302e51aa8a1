// SPDX-License-Identifier: GPL-2.0-only
/*
 * The relayd probe when the kernel takes only part of its version command (send() wrapped,
 * -Wl,--wrap=send): a short write, said as one, not as whatever errno last held.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relayd_probe.h"
#include "tests.h"

ssize_t __real_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags);

/* Half of what is asked, and an errno that send() did not set. */
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	ssize_t n = __real_send(fd, buf, len / 2, flags);

	errno = 0;
	return n;
}

int main(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	struct relayd_addr a;
	char url[64], why[512] = "";
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ASSERT_TRUE(lfd >= 0);
	ASSERT_EQ(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(listen(lfd, 4), 0);
	ASSERT_EQ(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	snprintf(url, sizeof(url), "net://127.0.0.1:%u", ntohs(sa.sin_port));
	ASSERT_EQ(relayd_addr_resolve(url, &a, why, sizeof(why)), 0);

	ASSERT_EQ(relayd_probe(&a, 2000 * UINT64_C(1000000), why, sizeof(why)), -EIO);
	ASSERT_CONTAINS(why, "version exchange: short write");
	close(lfd);
	return 0;
}
