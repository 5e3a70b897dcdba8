/*
 * corral's one native addon: who is on the other end of a unix socket, from the kernel — how
 * a pane's terminal takes its input — and giving the C heap's free pages back.
 *
 * Node has no SO_PEERCRED, and the scripting gate (SPEC §8) must know a client's process
 * from the kernel, never from what the client says. Each call is a thin wrapper over
 * one system call, so the policy stays in TypeScript (src/rpc/peer.ts):
 *
 *   peerCred(fd)      -> { pid, uid, gid } of the process that connected (SO_PEERCRED),
 *                        or null when the kernel gives none.
 *   peerPidfd(fd)     -> a pidfd for that process (SO_PEERPIDFD, Linux >= 6.5), or -1.
 *                        It names that very process even after its pid is reused.
 *   pidfdAlive(pidfd) -> whether the process a pidfd names has not been reaped
 *                        (pidfd_send_signal with signal 0).
 *   ttyLocalFlags(fd) -> c_lflag of the terminal behind a pty master (tcgetattr: on Linux a
 *                        master reports its slave's modes), or -1. Whether the program in a
 *                        pane reads keys itself (ICANON and ECHO off) or the kernel's line
 *                        discipline still does: src/pty/line-mode.ts.
 *   mallocTrim()      -> glibc's malloc_trim(0): whole free pages inside the C heap go back
 *                        to the system (true if any did). free() only ever shrinks the heap's
 *                        top, so the typed arrays of terminals given back while idle stayed
 *                        resident: src/terminal/memory-release.ts. false where not glibc.
 *
 * No state, no threads, no allocation beyond N-API values.
 */
#define _GNU_SOURCE
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <node_api.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

static int int_arg(napi_env env, napi_callback_info info, int32_t *out) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return 0;
  return napi_get_value_int32(env, argv[0], out) == napi_ok;
}

static napi_value make_int(napi_env env, int64_t value) {
  napi_value out;
  napi_create_int64(env, value, &out);
  return out;
}

static napi_value null_value(napi_env env) {
  napi_value out;
  napi_get_null(env, &out);
  return out;
}

static napi_value PeerCred(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!int_arg(env, info, &fd)) return null_value(env);
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) return null_value(env);
  napi_value out;
  napi_create_object(env, &out);
  napi_set_named_property(env, out, "pid", make_int(env, cred.pid));
  napi_set_named_property(env, out, "uid", make_int(env, cred.uid));
  napi_set_named_property(env, out, "gid", make_int(env, cred.gid));
  return out;
}

static napi_value PeerPidfd(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (!int_arg(env, info, &fd)) return make_int(env, -1);
  int pidfd = -1;
  socklen_t len = sizeof pidfd;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) != 0 || len != sizeof pidfd) return make_int(env, -1);
  return make_int(env, pidfd);
}

static napi_value PidfdAlive(napi_env env, napi_callback_info info) {
  int32_t pidfd;
  napi_value out;
  int alive = 0;
  if (int_arg(env, info, &pidfd) && pidfd >= 0) alive = syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
  napi_get_boolean(env, alive, &out);
  return out;
}

static napi_value TtyLocalFlags(napi_env env, napi_callback_info info) {
  int32_t fd;
  struct termios modes;
  if (!int_arg(env, info, &fd) || fd < 0 || tcgetattr(fd, &modes) != 0) return make_int(env, -1);
  return make_int(env, (int64_t)modes.c_lflag);
}

static napi_value MallocTrim(napi_env env, napi_callback_info info) {
  napi_value out;
  int released = 0;
  (void)info;
#ifdef __GLIBC__
  released = malloc_trim(0);
#endif
  napi_get_boolean(env, released, &out);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"peerCred", NULL, PeerCred, NULL, NULL, NULL, napi_default, NULL},
      {"peerPidfd", NULL, PeerPidfd, NULL, NULL, NULL, napi_default, NULL},
      {"pidfdAlive", NULL, PidfdAlive, NULL, NULL, NULL, napi_default, NULL},
      {"ttyLocalFlags", NULL, TtyLocalFlags, NULL, NULL, NULL, napi_default, NULL},
      {"mallocTrim", NULL, MallocTrim, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
