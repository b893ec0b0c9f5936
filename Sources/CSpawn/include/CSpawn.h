#ifndef TRAWL_CSPAWN_H
#define TRAWL_CSPAWN_H
#include <sys/types.h>

/* Starting a child that talks over descriptors 3 and 4 (Chromium's --remote-debugging-pipe).
 * Swift's Glibc module lacks pipe2 and posix_spawn_file_actions_addclosefrom_np; this file is
 * compiled with _GNU_SOURCE so they are there. */

/// A pipe whose two ends are close-on-exec. Returns 0, or -1 with errno set.
int trawl_pipe_cloexec(int fds[2]);

/// Spawns `path` with `argv` (NULL-terminated; argv[0] included) and the environment `envp`
/// (NULL-terminated), with `childIn` as its descriptor 3 and `childOut` as its descriptor 4;
/// stdin and stdout are /dev/null, stderr is `stderrFd` (or /dev/null when -1); every other
/// descriptor is closed, the signal mask is empty and every signal has its default action. The
/// child leads a process group of its own (`-pid` names its whole tree). Returns 0 and the pid
/// in `*pid`, or an errno value.
int trawl_spawn_with_pipe(const char *path, char *const argv[], char *const envp[],
                          int childIn, int childOut, int stderrFd, pid_t *pid);

#endif
