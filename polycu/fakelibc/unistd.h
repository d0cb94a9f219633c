/* polycu fakelibc: <unistd.h> (POSIX; Linux sysconf names). */
#ifndef _POLYCU_UNISTD_H
#define _POLYCU_UNISTD_H

#define _POLYCU_NEED_SIZE_T
#define _POLYCU_NEED_SSIZE_T
#define _POLYCU_NEED_OFF_T
#define _POLYCU_NEED_PID_T
#define _POLYCU_NEED_USECONDS_T
#define _POLYCU_NEED_NULL
#include <_polycu_types.h>

#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

#define _SC_CLK_TCK 2
#define _SC_OPEN_MAX 4
#define _SC_PAGESIZE 30
#define _SC_PAGE_SIZE _SC_PAGESIZE
#define _SC_NPROCESSORS_CONF 83
#define _SC_NPROCESSORS_ONLN 84

long sysconf(int name);
unsigned int sleep(unsigned int seconds);
int usleep(useconds_t usec);
pid_t getpid(void);
ssize_t read(int fd, void *buf, size_t nbyte);
ssize_t write(int fd, const void *buf, size_t nbyte);
int close(int fd);
off_t lseek(int fd, off_t offset, int whence);
int access(const char *path, int amode);
int unlink(const char *path);
char *getcwd(char *buf, size_t size);
int isatty(int fd);
int gethostname(char *name, size_t namelen);

#endif
