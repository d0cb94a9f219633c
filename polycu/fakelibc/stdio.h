/* polycu fakelibc: <stdio.h> (C11 7.21, plus the POSIX functions numerical
 * harnesses use). */
#ifndef _POLYCU_STDIO_H
#define _POLYCU_STDIO_H

#define _POLYCU_NEED_SIZE_T
#define _POLYCU_NEED_SSIZE_T
#define _POLYCU_NEED_OFF_T
#define _POLYCU_NEED_VA_LIST
#define _POLYCU_NEED_NULL
#include <_polycu_types.h>

typedef struct __polycu_FILE FILE;
typedef struct { long long __polycu_pos; } fpos_t;

#define _IOFBF 0
#define _IOLBF 1
#define _IONBF 2
#define BUFSIZ 8192
#define EOF (-1)
#define FOPEN_MAX 16
#define FILENAME_MAX 4096
#define L_tmpnam 20
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define TMP_MAX 238328

extern FILE *stdin;
extern FILE *stdout;
extern FILE *stderr;

int remove(const char *filename);
int rename(const char *old, const char *new_name);
FILE *tmpfile(void);
char *tmpnam(char *s);
int fclose(FILE *stream);
int fflush(FILE *stream);
FILE *fopen(const char *restrict filename, const char *restrict mode);
FILE *freopen(const char *restrict filename, const char *restrict mode,
              FILE *restrict stream);
void setbuf(FILE *restrict stream, char *restrict buf);
int setvbuf(FILE *restrict stream, char *restrict buf, int mode, size_t size);

int fprintf(FILE *restrict stream, const char *restrict format, ...);
int fscanf(FILE *restrict stream, const char *restrict format, ...);
int printf(const char *restrict format, ...);
int scanf(const char *restrict format, ...);
int snprintf(char *restrict s, size_t n, const char *restrict format, ...);
int sprintf(char *restrict s, const char *restrict format, ...);
int sscanf(const char *restrict s, const char *restrict format, ...);
int vfprintf(FILE *restrict stream, const char *restrict format,
             __polycu_va_list arg);
int vfscanf(FILE *restrict stream, const char *restrict format,
            __polycu_va_list arg);
int vprintf(const char *restrict format, __polycu_va_list arg);
int vscanf(const char *restrict format, __polycu_va_list arg);
int vsnprintf(char *restrict s, size_t n, const char *restrict format,
              __polycu_va_list arg);
int vsprintf(char *restrict s, const char *restrict format,
             __polycu_va_list arg);
int vsscanf(const char *restrict s, const char *restrict format,
            __polycu_va_list arg);

int fgetc(FILE *stream);
char *fgets(char *restrict s, int n, FILE *restrict stream);
int fputc(int c, FILE *stream);
int fputs(const char *restrict s, FILE *restrict stream);
int getc(FILE *stream);
int getchar(void);
int putc(int c, FILE *stream);
int putchar(int c);
int puts(const char *s);
int ungetc(int c, FILE *stream);

size_t fread(void *restrict ptr, size_t size, size_t nmemb,
             FILE *restrict stream);
size_t fwrite(const void *restrict ptr, size_t size, size_t nmemb,
              FILE *restrict stream);

int fgetpos(FILE *restrict stream, fpos_t *restrict pos);
int fseek(FILE *stream, long offset, int whence);
int fsetpos(FILE *stream, const fpos_t *pos);
long ftell(FILE *stream);
void rewind(FILE *stream);

void clearerr(FILE *stream);
int feof(FILE *stream);
int ferror(FILE *stream);
void perror(const char *s);

/* POSIX */
int fileno(FILE *stream);
FILE *fdopen(int fd, const char *mode);
FILE *popen(const char *command, const char *mode);
int pclose(FILE *stream);
int dprintf(int fd, const char *restrict format, ...);
ssize_t getline(char **restrict lineptr, size_t *restrict n,
                FILE *restrict stream);
int fseeko(FILE *stream, off_t offset, int whence);
off_t ftello(FILE *stream);

#endif
