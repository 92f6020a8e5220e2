// Package pipes widens OS pipes, so that a message of a few hundred
// kilobytes crosses one in one write and one read instead of one per
// 64 KiB (Linux's default capacity), each with a wake-up of the other
// side. Only Linux lets a process set a pipe's capacity (fcntl
// F_SETPIPE_SZ); elsewhere Widen does nothing.
package pipes

// Capacity is the capacity Widen asks for: enough for a 1,000-tool
// listing (about 300 KB) in one piece. The kernel caps it at
// /proc/sys/fs/pipe-max-size (1 MiB by default) for processes without
// CAP_SYS_RESOURCE, and charges it to the user's pipe-user-pages-soft
// budget (64 MiB by default): a few such pipes per guarded server.
const Capacity = 1 << 20
