// The WASI functions a C or C++ agent's libc may reach for, answered inside the agent.
//
// `croupier build` compiles this file into every C and C++ agent. Threat model: the agent is
// untrusted, and the host offers it the game world and `host` (log, seeded random) and
// nothing else; the loader refuses any other import. wasi-libc and libc++ call WASI for
// stdio, the clock, the environment and files, which would be such imports. Defining the
// import symbols here (wasm-ld prefers a definition to an import) keeps the component free
// of WASI while the usual calls behave sensibly and deterministically:
//
// - `printf`, `puts`, `std::cout` (stdout) and `fprintf(stderr, ...)`, `std::cerr` (stderr)
//   become lines of the agent's log (info and warn), which the host bounds and keeps in the
//   game record. stdout reports itself as a terminal so that it is line-buffered: a line
//   reaches the log when it ends, not when a 1 KiB buffer fills. An empty line logs as
//   an empty entry.
// - No clock (the calls fail; `time()` gives 0), no environment, no arguments, no files (`fopen` fails), no
//   input and no WASI randomness: use `croupier_rng.h` or the host's `random` import.
// - `exit()` traps: an agent that exits has faulted, as an agent that aborts.
//
// Every function of WASI preview 1 that wasi-libc, libc++ or libc++abi imports is defined
// here (the list came from their archives), so no C or C++ program can import WASI.
#include <stddef.h>
#include <stdint.h>
#include CROUPIER_WORLD_H

enum { OK = 0, BADF = 8, NOSYS = 52, SPIPE = 70, NOTCAPABLE = 76 };

typedef struct {
    const uint8_t *buf;
    size_t len;
} ciovec;

#define WASI(name) __imported_wasi_snapshot_preview1_##name

// A line of stdout (0) or stderr (1) being put together: stderr is unbuffered, so
// `std::cerr << "x = " << x << "\n"` arrives in three writes but is one line of the log. A
// line longer than the buffer is logged in pieces; a last line without its newline stays
// here when the game ends, as it would in a terminal's buffer.
static char line[2][512];
static size_t used[2];

static void emit(int s) {
    CROUPIER_STRING_T text = {(uint8_t *)line[s], used[s]};
    croupier_agent_host_log(s == 0 ? CROUPIER_AGENT_HOST_LEVEL_INFO : CROUPIER_AGENT_HOST_LEVEL_WARN, &text);
    used[s] = 0;
}

int32_t WASI(fd_write)(int32_t fd, int32_t iovs, int32_t n, int32_t nwritten) {
    if (fd != 1 && fd != 2) return BADF;
    int s = fd - 1;
    const ciovec *v = (const ciovec *)(uintptr_t)iovs;
    size_t total = 0;
    for (int32_t i = 0; i < n; i++) {
        total += v[i].len;
        for (size_t k = 0; k < v[i].len; k++) {
            char c = (char)v[i].buf[k];
            if (c == '\n') {
                emit(s);
                continue;
            }
            line[s][used[s]++] = c;
            if (used[s] == sizeof line[s]) emit(s);
        }
    }
    *(size_t *)(uintptr_t)nwritten = total;
    return OK;
}

int32_t WASI(fd_fdstat_get)(int32_t fd, int32_t out) {
    if (fd < 0 || fd > 2) return BADF;
    // A character device without seek or tell rights: a terminal, so stdio line-buffers.
    uint8_t *p = (uint8_t *)(uintptr_t)out;
    for (int i = 0; i < 24; i++) p[i] = 0;
    p[0] = 2;
    return OK;
}

#define I32 int32_t
#define I64 int64_t
// The rest only refuse: the descriptor is not one the agent has (BADF), the path lies
// outside the sandbox (NOTCAPABLE), or the service does not exist in it (NOSYS).
#define REFUSE(name, err, ...) \
    I32 WASI(name)(__VA_ARGS__) { return err; }

I32 WASI(fd_close)(I32 fd) { return fd >= 0 && fd <= 2 ? OK : BADF; }
REFUSE(fd_seek, SPIPE, I32 fd, I64 offset, I32 whence, I32 out)
REFUSE(fd_tell, SPIPE, I32 fd, I32 out)

I32 WASI(fd_read)(I32 fd, I32 iovs, I32 n, I32 nread) {
    if (fd != 0) return BADF;
    *(size_t *)(uintptr_t)nread = 0; // stdin is empty
    return OK;
}

// No preopened directories: every path is outside the sandbox.
REFUSE(fd_prestat_get, BADF, I32 fd, I32 out)
REFUSE(fd_prestat_dir_name, BADF, I32 fd, I32 path, I32 len)
REFUSE(path_open, NOTCAPABLE, I32 fd, I32 dirflags, I32 path, I32 path_len, I32 oflags, I64 rights,
       I64 inheriting, I32 fdflags, I32 out)
REFUSE(path_create_directory, NOTCAPABLE, I32 fd, I32 path, I32 len)
REFUSE(path_filestat_get, NOTCAPABLE, I32 fd, I32 flags, I32 path, I32 len, I32 out)
REFUSE(path_filestat_set_times, NOTCAPABLE, I32 fd, I32 flags, I32 path, I32 len, I64 atim, I64 mtim,
       I32 fst)
REFUSE(path_link, NOTCAPABLE, I32 fd, I32 flags, I32 path, I32 len, I32 fd2, I32 path2, I32 len2)
REFUSE(path_readlink, NOTCAPABLE, I32 fd, I32 path, I32 len, I32 buf, I32 buf_len, I32 out)
REFUSE(path_remove_directory, NOTCAPABLE, I32 fd, I32 path, I32 len)
REFUSE(path_rename, NOTCAPABLE, I32 fd, I32 path, I32 len, I32 fd2, I32 path2, I32 len2)
REFUSE(path_symlink, NOTCAPABLE, I32 path, I32 len, I32 fd, I32 path2, I32 len2)
REFUSE(path_unlink_file, NOTCAPABLE, I32 fd, I32 path, I32 len)

REFUSE(fd_advise, BADF, I32 fd, I64 offset, I64 len, I32 advice)
REFUSE(fd_allocate, BADF, I32 fd, I64 offset, I64 len)
REFUSE(fd_datasync, BADF, I32 fd)
REFUSE(fd_sync, BADF, I32 fd)
REFUSE(fd_fdstat_set_flags, BADF, I32 fd, I32 flags)
REFUSE(fd_fdstat_set_rights, BADF, I32 fd, I64 base, I64 inheriting)
REFUSE(fd_filestat_get, BADF, I32 fd, I32 out)
REFUSE(fd_filestat_set_size, BADF, I32 fd, I64 size)
REFUSE(fd_filestat_set_times, BADF, I32 fd, I64 atim, I64 mtim, I32 fst)
REFUSE(fd_pread, BADF, I32 fd, I32 iovs, I32 n, I64 offset, I32 out)
REFUSE(fd_pwrite, BADF, I32 fd, I32 iovs, I32 n, I64 offset, I32 out)
REFUSE(fd_readdir, BADF, I32 fd, I32 buf, I32 len, I64 cookie, I32 out)
REFUSE(fd_renumber, BADF, I32 fd, I32 to)
REFUSE(sock_accept, BADF, I32 fd, I32 flags, I32 out)
REFUSE(sock_recv, BADF, I32 fd, I32 iovs, I32 n, I32 flags, I32 out, I32 out_flags)
REFUSE(sock_send, BADF, I32 fd, I32 iovs, I32 n, I32 flags, I32 out)
REFUSE(sock_shutdown, BADF, I32 fd, I32 how)

// No environment and no arguments.
static I32 none(I32 count, I32 size) {
    *(size_t *)(uintptr_t)count = 0;
    *(size_t *)(uintptr_t)size = 0;
    return OK;
}
I32 WASI(environ_sizes_get)(I32 count, I32 size) { return none(count, size); }
REFUSE(environ_get, OK, I32 list, I32 buf)
I32 WASI(args_sizes_get)(I32 count, I32 size) { return none(count, size); }
REFUSE(args_get, OK, I32 list, I32 buf)

// No clock and no entropy: a game replays bit for bit only if the agent can read neither.
REFUSE(clock_time_get, NOSYS, I32 id, I64 precision, I32 out)
REFUSE(clock_res_get, NOSYS, I32 id, I32 out)
REFUSE(random_get, NOSYS, I32 buf, I32 len)
REFUSE(poll_oneoff, NOSYS, I32 in, I32 out, I32 n, I32 nevents)
REFUSE(sched_yield, OK, void)

_Noreturn void WASI(proc_exit)(I32 code) { __builtin_trap(); }
