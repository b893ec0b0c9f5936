#include "CSpawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int trawl_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int trawl_spawn_with_pipe(const char *path, char *const argv[], char *const envp[],
                          int childIn, int childOut, int stderrFd, pid_t *pid) {
    /* Move the sources above the targets first, so a source that is already 3 or 4 cannot be
     * overwritten by the other dup2 (or left close-on-exec by a dup2 onto itself). */
    int in = fcntl(childIn, F_DUPFD_CLOEXEC, 10);
    if (in < 0) return errno;
    int out = fcntl(childOut, F_DUPFD_CLOEXEC, 10);
    if (out < 0) { int e = errno; close(in); return e; }

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) { close(in); close(out); return result; }
    result = posix_spawnattr_init(&attributes);
    if (result != 0) { posix_spawn_file_actions_destroy(&actions); close(in); close(out); return result; }

    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &empty);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawnattr_setflags(&attributes,
        POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (result == 0) {
        result = stderrFd >= 0 ? posix_spawn_file_actions_adddup2(&actions, stderrFd, 2)
                               : posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    }
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, in, 3);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, out, 4);
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 5);
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(in);
    close(out);
    return result;
}
