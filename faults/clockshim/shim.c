/*
 * lockcheck clock shim: an LD_PRELOAD library that offsets the wall clock
 * of the process it is loaded into.
 *
 * It interposes clock_gettime (CLOCK_REALTIME and CLOCK_REALTIME_COARSE
 * only), gettimeofday and time. Every other clock, the monotonic ones
 * above all, passes through untouched. The offset is a signed 64-bit count
 * of nanoseconds at byte 0 of the file named by $LOCKCHECK_CLOCK_FILE,
 * mapped shared at load time: lockcheck changes it at run time with an
 * atomic store, and every reader sees the change at its next call. Without
 * the variable, or when the file cannot be mapped, the offset is 0.
 *
 * The shim never allocates and never recurses: the real clock_gettime is
 * looked up once in a constructor, and until then (and should the lookup
 * fail) the clock is read with a raw system call. (libfaketime aborts on
 * redis-server because its lookup runs inside the first clock call, which
 * jemalloc makes while dlsym allocates.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_fn)(clockid_t, struct timespec *);

static clock_fn real_clock_gettime;      /* set once by the constructor */
static const int64_t *offset_ns;         /* the mapped file, or NULL */

__attribute__((constructor)) static void shim_init(void)
{
	const char *path = getenv("LOCKCHECK_CLOCK_FILE");
	if (path != NULL && path[0] != '\0') {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			void *p = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
			close(fd);
			if (p != MAP_FAILED)
				__atomic_store_n(&offset_ns, (const int64_t *)p, __ATOMIC_RELEASE);
		}
	}
	clock_fn f = (clock_fn)dlsym(RTLD_NEXT, "clock_gettime");
	if (f != NULL)
		__atomic_store_n(&real_clock_gettime, f, __ATOMIC_RELEASE);
}

static int raw_clock_gettime(clockid_t id, struct timespec *ts)
{
	clock_fn f = __atomic_load_n(&real_clock_gettime, __ATOMIC_ACQUIRE);
	if (f != NULL)
		return f(id, ts);
	return (int)syscall(SYS_clock_gettime, id, ts);
}

static int64_t current_offset(void)
{
	const int64_t *p = __atomic_load_n(&offset_ns, __ATOMIC_ACQUIRE);
	return p == NULL ? 0 : __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* shifted reads the real clock id and adds the offset. */
static int shifted(clockid_t id, struct timespec *ts)
{
	int rc = raw_clock_gettime(id, ts);
	int64_t off = current_offset();
	if (rc != 0 || off == 0)
		return rc;
	int64_t ns = (int64_t)ts->tv_nsec + off % 1000000000LL;
	int64_t s = (int64_t)ts->tv_sec + off / 1000000000LL + ns / 1000000000LL;
	ns %= 1000000000LL;
	if (ns < 0) {
		ns += 1000000000LL;
		s--;
	}
	ts->tv_sec = (time_t)s;
	ts->tv_nsec = (long)ns;
	return 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)
		return shifted(id, ts);
	return raw_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	if (tz != NULL) {
		struct timezone *z = tz;
		z->tz_minuteswest = 0;
		z->tz_dsttime = 0;
	}
	struct timespec ts;
	int rc = shifted(CLOCK_REALTIME, &ts);
	if (rc != 0)
		return rc;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;
	if (shifted(CLOCK_REALTIME, &ts) != 0)
		return (time_t)-1;
	if (t != NULL)
		*t = ts.tv_sec;
	return ts.tv_sec;
}
