/* Unit tests: invalid service files (conf/parse.c, conf/svc.c,
 * conf/svc_keys.c, conf/svc_set.c).
 *
 * Each case is a file with one mistake, the exact problems it must produce
 * ("LINE: message", line 0 for the whole file), and its twin: the same file
 * with the mistake corrected, which must load with no problem at all.  The
 * twin proves that the refusal comes from the mistake and not from the
 * fixture. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../conf/diag.h"
#include "../../conf/parse.h"
#include "../../conf/svc.h"
#include "t.h"

#define ROOT "tests/unit/root"
#define PASSWD ROOT "/etc/passwd"
#define GROUP ROOT "/etc/group"

/* A string literal and its length, NUL bytes included. */
#define TEXT(s) s, sizeof(s) - 1

#define OK "command = /bin/true\n"
#define NAME_RULE "(letters, digits, '_', '.', '@', '-'; at most 64; not starting with '.')"
#define A16 "aaaaaaaaaaaaaaaa"
#define A64 A16 A16 A16 A16

/* 21 lines with an unknown key each, and their corrected twins. */
#define Z(n) "zzz" #n " = 1\n"
#define ZW(n) #n ": unknown key 'zzz" #n "'\n"
#define ZT(n) "environment = Z" #n "=1\n"
#define Z19(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) \
  M(13) M(14) M(15) M(16) M(17) M(18) M(19)

enum file_kind {
  REGULAR,       /* text as given */
  LONG_LINE,     /* line 2 is CONF_LINE_MAX + 1 bytes (twin: CONF_LINE_MAX) */
  BIG_FILE,      /* CONF_FILE_MAX + 1 bytes (twin: CONF_FILE_MAX) */
  DIRECTORY,     /* a directory named like a service file */
  DANGLING,      /* a symbolic link to nowhere */
  FIFO,          /* a named pipe: must be refused without blocking */
  MISSING,       /* no file at all */
};

typedef struct bad_file_s {
  char const *what;
  char const *name;        /* in a fresh temporary directory */
  enum file_kind kind;
  char const *text;        /* REGULAR: the file's bytes */
  size_t len;
  char const *want;        /* every problem, in order: "LINE: message\n" */
  char const *twin;        /* the same file with the mistake corrected */
  char const *twin_name;   /* when the mistake is in the name; else NULL */
} bad_file;

#define BINDRULE "(SRC or SRC:DST, absolute paths)"
#define LINKED "is, or lies under, a symbolic link"
static bad_file const bad_files[] = {
  /* the container keys (ROOT has /srv/www, /data/file, a root directory
   * /ct, a file /afile, links /outlink -> /etc and /inlink -> data) */
  { "bind source: a link out of the tree", "x.svc", REGULAR, TEXT(OK "bind-ro = /outlink:/srv/www\n"),
    "2: bind-ro: " ROOT "/outlink " LINKED " (to /etc, outside the tree): name the real path\n",
    OK "bind-ro = /data:/srv/www\n", 0 },
  { "bind source: under a link in the tree", "x.svc", REGULAR,
    TEXT(OK "root-directory = /ct\nbind = /inlink/file:/etc-hostname\n"),
    "3: bind: " ROOT "/inlink/file " LINKED " (to /data/file): name the real path\n",
    OK "root-directory = /ct\nbind = /data/file:/etc-hostname\n", 0 },
  { "bind target: a link", "x.svc", REGULAR, TEXT(OK "bind = /data:/outlink\n"),
    "2: bind: " ROOT "/outlink " LINKED " (to /etc, outside the tree): name the real path\n",
    OK "bind = /data:/srv/www\n", 0 },
  { "bind: a '..' component", "x.svc", REGULAR, TEXT(OK "bind = /srv/../etc:/srv/www\n"),
    "2: bind: a '.' or '..' component, not '/srv/../etc:/srv/www' " BINDRULE "\n",
    OK "bind = /data:/srv/www\n", 0 },
  { "bind: a relative target", "x.svc", REGULAR, TEXT(OK "bind = /data:srv\n"),
    "2: bind: expected an absolute path, not '/data:srv' " BINDRULE "\n", OK "bind = /data:/srv/www\n", 0 },
  { "bind: a missing source", "x.svc", REGULAR, TEXT(OK "bind = /nosuch:/srv/www\n"),
    "2: bind: " ROOT "/nosuch does not exist\n", OK "bind = /data:/srv/www\n", 0 },
  { "bind: a target missing in the root directory", "x.svc", REGULAR,
    TEXT(OK "root-directory = /ct\nbind-ro = /data:/nosuch\n"),
    "3: bind-ro: " ROOT "/ct/nosuch does not exist\n", OK "root-directory = /ct\nbind-ro = /data:/srv/www\n", 0 },
  { "bind: a file onto a directory", "x.svc", REGULAR, TEXT(OK "bind = /data/file:/srv/www\n"),
    "2: bind: /data/file is a file and /srv/www is not: a bind needs the same kind on both sides\n",
    OK "bind = /data:/srv/www\n", 0 },
  { "bind: onto /", "x.svc", REGULAR, TEXT(OK "bind = /data:/\n"),
    "2: bind: '/data:/' would cover the whole tree: use root-directory\n", OK "bind = /data:/srv/www\n", 0 },
  { "bind: the same target twice", "x.svc", REGULAR, TEXT(OK "bind = /data:/srv/www\nbind-ro = /srv/www\n"),
    "3: bind-ro: /srv/www is already a bind target (line 2)\n", OK "bind = /data:/srv/www\n", 0 },
  { "bind: under the root directory's own /tmp", "x.svc", REGULAR,
    TEXT(OK "root-directory = /ct\nbind = /data:/tmp\n"),
    "3: bind: /tmp is in the service's own /tmp, mounted after the binds: it would be hidden\n",
    OK "root-directory = /ct\nbind = /data:/run\n", 0 },
  { "bind: under the service's own /proc (every mount namespace has one)", "x.svc", REGULAR,
    TEXT(OK "bind = /data:/proc/sys\n"),
    "2: bind: /proc/sys is in the service's own /proc, mounted after the binds: it would be hidden\n",
    OK "bind = /data:/srv/www\n", 0 },
  { "bind: under a read-only tree's own /dev (private-devices by default)", "x.svc", REGULAR,
    TEXT(OK "read-only = yes\nbind = /data:/dev/shm\n"),
    "3: bind: /dev/shm is in the service's own /dev, mounted after the binds: it would be hidden\n",
    OK "read-only = yes\nbind = /data:/srv/www\n", 0 },
  { "read-write: in a private /tmp", "x.svc", REGULAR,
    TEXT(OK "read-only = yes\nprivate-tmp = yes\nread-write = /tmp\n"),
    "4: read-write: /tmp is in the service's own /tmp, which it gets writable anyway\n",
    OK "read-only = yes\nprivate-tmp = yes\nread-write = /data\n", 0 },
  { "root-directory: a file", "x.svc", REGULAR, TEXT(OK "root-directory = /afile\n"),
    "2: root-directory: " ROOT "/afile is not a directory\n", OK "root-directory = /ct\n", 0 },
  { "root-directory: a link", "x.svc", REGULAR, TEXT(OK "root-directory = /outlink\n"),
    "2: root-directory: " ROOT "/outlink " LINKED " (to /etc, outside the tree): name the real path\n",
    OK "root-directory = /ct\n", 0 },
  { "root-directory: no dev and tmp in it", "x.svc", REGULAR, TEXT(OK "root-directory = /notdir-root\n"),
    "2: root-directory: " ROOT "/notdir-root/dev does not exist\n"
    "2: root-directory: " ROOT "/notdir-root/tmp does not exist\n", OK "root-directory = /ct\n", 0 },
  { "root-directory: missing", "x.svc", REGULAR, TEXT(OK "root-directory = /nosuch\n"),
    "2: root-directory: " ROOT "/nosuch does not exist\n", OK "root-directory = /ct\n", 0 },
  { "root-directory: relative", "x.svc", REGULAR, TEXT(OK "root-directory = ct\n"),
    "2: root-directory: expected an absolute path, not 'ct'\n", OK "root-directory = /ct\n", 0 },
  { "root-directory with ready = notify", "x.svc", REGULAR, TEXT(OK "root-directory = /ct\nready = notify\n"),
    "3: ready: notify needs capinit's socket in the service's tree, which root-directory hides: use fd:N\n",
    OK "root-directory = /ct\nready = fd:3\n", 0 },
  { "read-write: a link", "x.svc", REGULAR, TEXT(OK "read-only = yes\nread-write = /inlink\n"),
    "3: read-write: " ROOT "/inlink " LINKED " (to /data): name the real path\n",
    OK "read-only = yes\nread-write = /data\n", 0 },
  { "read-write: relative", "x.svc", REGULAR, TEXT(OK "read-only = yes\nread-write = data\n"),
    "3: read-write: expected an absolute path, not 'data'\n", OK "read-only = yes\nread-write = /data\n", 0 },
  { "read-only: not a boolean", "x.svc", REGULAR, TEXT(OK "read-only = sure\n"),
    "2: read-only: expected yes or no, not 'sure'\n", OK "read-only = yes\n", 0 },
  { "network: unknown", "x.svc", REGULAR, TEXT(OK "network = bridge\n"),
    "2: network: expected host, none, netns:NAME, macvlan:PARENT or ipvlan:PARENT, not 'bridge'\n", OK "network = none\n", 0 },
  { "network: a path as the card's parent", "x.svc", REGULAR, TEXT(OK "network = macvlan:../eth0\naddress = 10.0.2.20/24\n"),
    "2: network: invalid link name '../eth0' (letters, digits, '-', '_', '.'; at most 15)\n"
    "3: address: needs a card of its own (network = macvlan:PARENT or ipvlan:PARENT), not network = host\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/24\n", 0 },
  { "network: a card without an address", "x.svc", REGULAR, TEXT(OK "network = ipvlan:eth0\n"),
    "2: network: ipvlan:eth0 needs address = A.B.C.D/PREFIX\n", OK "network = ipvlan:eth0\naddress = 10.0.2.20/24\n", 0 },
  { "address: without a card", "x.svc", REGULAR, TEXT(OK "network = none\naddress = 10.0.2.20/24\n"),
    "3: address: needs a card of its own (network = macvlan:PARENT or ipvlan:PARENT), not network = none\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/24\n", 0 },
  { "address: no prefix", "x.svc", REGULAR, TEXT(OK "network = macvlan:eth0\naddress = 10.0.2.20\n"),
    "3: address: expected A.B.C.D/PREFIX (IPv4, e.g. 10.0.2.20/24), not '10.0.2.20'\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/32\n", 0 },
  { "address: prefix 33", "x.svc", REGULAR, TEXT(OK "network = macvlan:eth0\naddress = 10.0.2.20/33\n"),
    "3: address: expected A.B.C.D/PREFIX (IPv4, prefix 1 to 32), not '10.0.2.20/33'\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/1\n", 0 },
  { "address: the net's broadcast", "x.svc", REGULAR, TEXT(OK "network = macvlan:eth0\naddress = 10.0.2.255/24\n"),
    "3: address: 10.0.2.255/24 is the broadcast address of its net: name a host's\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.255/23\n", 0 },
  { "gateway: outside the net", "x.svc", REGULAR,
    TEXT(OK "network = macvlan:eth0\naddress = 10.0.2.20/24\ngateway = 10.0.3.1\n"),
    "4: gateway: 10.0.3.1 is outside the card's net (address, line 3): the kernel could not reach it\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/23\ngateway = 10.0.3.1\n", 0 },
  { "gateway: the service's own address", "x.svc", REGULAR,
    TEXT(OK "network = macvlan:eth0\naddress = 10.0.2.20/24\ngateway = 10.0.2.20\n"),
    "4: gateway: is the service's own address\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/24\ngateway = 10.0.2.1\n", 0 },
  { "gateway: with network = host", "x.svc", REGULAR, TEXT(OK "gateway = 10.0.2.1\n"),
    "2: gateway: needs a card of its own (network = macvlan:PARENT or ipvlan:PARENT), not network = host\n",
    OK "network = macvlan:eth0\naddress = 10.0.2.20/24\ngateway = 10.0.2.1\n", 0 },
  { "network: a path as the name", "x.svc", REGULAR, TEXT(OK "network = netns:../../etc/passwd\n"),
    "2: network: invalid namespace name '../../etc/passwd' (letters, digits, '-', '_', '.'; at most 64)\n",
    OK "network = netns:blue\n", 0 },
  { "proc-subset: unknown", "x.svc", REGULAR, TEXT(OK "proc-subset = sys\n"),
    "2: proc-subset: expected pid or all, not 'sys'\n", OK "proc-subset = pid\n", 0 },
  { "hostname: invalid", "x.svc", REGULAR, TEXT(OK "hostname = -box\n"),
    "2: hostname: invalid host name '-box' (letters, digits, '-' and '.'; at most 64)\n", OK "hostname = box\n", 0 },

  /* the line syntax */
  { "unknown key", "x.svc", REGULAR, TEXT(OK "frobnicate = 1\n"),
    "2: unknown key 'frobnicate'\n", OK "description = 1\n", 0 },
  { "unknown key, close to a known one", "x.svc", REGULAR, TEXT(OK "usr = www\n"),
    "2: unknown key 'usr' (did you mean 'user'?)\n", OK "user = www\n", 0 },
  { "unknown key, close to the prefix key", "x.svc", REGULAR, TEXT(OK "rlimit = 100\n"),
    "2: unknown key 'rlimit' (did you mean 'rlimit-NAME'?)\n", OK "rlimit-nofile = 100\n", 0 },
  { "duplicate key", "x.svc", REGULAR, TEXT(OK "description = a\n\ndescription = b\n"),
    "4: duplicate key 'description' (first set on line 2)\n", OK "description = a\n\n# description = b\n", 0 },
  { "duplicate resource limit", "x.svc", REGULAR, TEXT(OK "rlimit-nofile = 10\nrlimit-nofile = 20\n"),
    "3: duplicate key 'rlimit-nofile' (first set on line 2)\n", OK "rlimit-nofile = 10\nrlimit-nproc = 20\n", 0 },
  { "line without '='", "x.svc", REGULAR, TEXT(OK "description web\n"),
    "2: expected 'key = value'\n", OK "description = web\n", 0 },
  { "line without a key", "x.svc", REGULAR, TEXT(OK "  = web\n"),
    "2: expected 'key = value': the key is missing\n", OK "description = web\n", 0 },
  { "empty file", "x.svc", REGULAR, TEXT(""),
    "0: missing required key 'command'\n", OK, 0 },
  { "no command", "x.svc", REGULAR, TEXT("# web\ndescription = web\n"),
    "0: missing required key 'command'\n", "# web\ndescription = web\n" OK, 0 },

  /* command lines */
  { "relative command", "x.svc", REGULAR, TEXT("command = bin/true\n"),
    "1: command: the program must be an absolute path (there is no PATH search)\n", OK, 0 },
  { "unterminated quote", "x.svc", REGULAR, TEXT("command = /bin/echo \"a b\n"),
    "1: command: unterminated quote\n", "command = /bin/echo \"a b\"\n", 0 },
  { "empty command", "x.svc", REGULAR, TEXT("command =\n"),
    "1: command: empty command\n", OK, 0 },
  { "stop-command on a longrun", "x.svc", REGULAR, TEXT(OK "stop-command = /bin/false\n"),
    "2: stop-command: only a oneshot service has one (a longrun is stopped with stop-signal)\n",
    "type = oneshot\n" OK "stop-command = /bin/false\n", 0 },
  { "relative stop-command", "x.svc", REGULAR, TEXT("type = oneshot\n" OK "stop-command = false\n"),
    "3: stop-command: the program must be an absolute path (there is no PATH search)\n",
    "type = oneshot\n" OK "stop-command = /bin/false\n", 0 },

  /* words from a fixed list */
  { "bad type", "x.svc", REGULAR, TEXT(OK "type = daemon\n"),
    "2: type: expected longrun or oneshot, not 'daemon'\n", OK "type = longrun\n", 0 },
  { "bad mode", "x.svc", REGULAR, TEXT(OK "mode = root\n"),
    "2: mode: expected legacy or noroot, not 'root'\n", OK "mode = noroot\n", 0 },
  { "bad restart", "x.svc", REGULAR, TEXT(OK "restart = sometimes\n"),
    "2: restart: expected always, on-failure or never, not 'sometimes'\n", OK "restart = on-failure\n", 0 },
  { "bad log", "x.svc", REGULAR, TEXT(OK "log = syslog\n"),
    "2: log: expected file, console, kmsg or none, not 'syslog'\n", OK "log = kmsg\n", 0 },
  { "bad ready", "x.svc", REGULAR, TEXT(OK "ready = socket\n"),
    "2: ready: expected exec, fd:N or notify, not 'socket'\n", OK "ready = notify\n", 0 },
  { "bad enabled", "x.svc", REGULAR, TEXT(OK "enabled = true\n"),
    "2: enabled: expected yes or no, not 'true'\n", OK "enabled = yes\n", 0 },
  { "bad no-new-privileges", "x.svc", REGULAR, TEXT(OK "no-new-privileges = 1\n"),
    "2: no-new-privileges: expected yes or no, not '1'\n", OK "no-new-privileges = yes\n", 0 },

  /* readiness */
  { "ready fd:2", "x.svc", REGULAR, TEXT(OK "ready = fd:2\n"),
    "2: ready: fd:2 is stdin, stdout or stderr: use a descriptor of 3 or more\n", OK "ready = fd:3\n", 0 },
  { "ready fd:1024", "x.svc", REGULAR, TEXT(OK "ready = fd:1024\n"),
    "2: ready: fd:N needs a descriptor number from 3 to 1023, not '1024'\n", OK "ready = fd:1023\n", 0 },
  { "ready fd:abc", "x.svc", REGULAR, TEXT(OK "ready = fd:abc\n"),
    "2: ready: fd:N needs a descriptor number from 3 to 1023, not 'abc'\n", OK "ready = fd:4\n", 0 },
  { "ready on a oneshot", "x.svc", REGULAR, TEXT("type = oneshot\n" OK "ready = notify\n"),
    "3: ready: a oneshot is ready when it exits 0; 'ready' applies to longrun services\n",
    "type = longrun\n" OK "ready = notify\n", 0 },

  /* capabilities and securebits */
  { "unknown capability", "x.svc", REGULAR, TEXT(OK "capabilities = chown, net_foo\n"),
    "2: capabilities: unknown capability 'net_foo' (see capabilities(7); 'cap_net_raw' or 'net_raw')\n",
    OK "capabilities = chown, net_raw\n", 0 },
  { "unknown capability in bounding", "x.svc", REGULAR, TEXT(OK "bounding = cap_sys_foo\n"),
    "2: bounding: unknown capability 'cap_sys_foo' (see capabilities(7); 'cap_net_raw' or 'net_raw')\n",
    OK "bounding = cap_sys_time\n", 0 },
  { "'all' in capabilities", "x.svc", REGULAR, TEXT(OK "capabilities = all\n"),
    "2: capabilities: 'all' is not allowed here: name each capability the service needs\n",
    OK "capabilities = chown\n", 0 },
  { "'none' with capability names", "x.svc", REGULAR, TEXT(OK "capabilities = none, net_raw\n"),
    "2: capabilities: 'none' cannot be combined with names\n", OK "capabilities = net_raw\n", 0 },
  { "'all' with bounding names", "x.svc", REGULAR, TEXT(OK "bounding = all net_raw\n"),
    "2: bounding: 'all' cannot be combined with other names\n", OK "bounding = all\n", 0 },
  { "'none' with bounding names", "x.svc", REGULAR, TEXT(OK "bounding = net_raw none\n"),
    "2: bounding: 'none' cannot be combined with other names\n", OK "bounding = none\n", 0 },
  { "capabilities outside the bounding set", "x.svc", REGULAR,
    TEXT(OK "capabilities = net_raw, chown\nbounding = chown\n"),
    "2: capabilities: cap_net_raw not in the bounding set (line 3): add it to 'bounding' or remove it here\n",
    OK "capabilities = net_raw, chown\nbounding = chown net_raw\n", 0 },
  { "unknown securebit", "x.svc", REGULAR, TEXT(OK "securebits = noroot, no-root-locked\n"),
    "2: securebits: unknown securebit 'no-root-locked' (known: noroot, noroot-locked, no-setuid-fixup, "
    "no-setuid-fixup-locked, keep-caps, keep-caps-locked, no-cap-ambient-raise, no-cap-ambient-raise-locked)\n",
    OK "securebits = noroot, noroot-locked\n", 0 },
  { "'none' with securebit names", "x.svc", REGULAR, TEXT(OK "securebits = none keep-caps\n"),
    "2: securebits: 'none' cannot be combined with names\n", OK "securebits = keep-caps\n", 0 },

  /* durations */
  { "duration without a unit", "x.svc", REGULAR, TEXT(OK "stop-timeout = 5\n"),
    "2: stop-timeout: a duration needs a unit: ms, s, m or h (as in 10s), not '5'\n", OK "stop-timeout = 5s\n", 0 },
  { "duration with an unknown unit", "x.svc", REGULAR, TEXT(OK "ready-timeout = 5d\n"),
    "2: ready-timeout: unknown duration unit: use ms, s, m or h (as in 10s), not '5d'\n", OK "ready-timeout = 5h\n", 0 },
  { "duration too large", "x.svc", REGULAR, TEXT(OK "restart-delay-max = 25h\n"),
    "2: restart-delay-max: duration too large (at most 24h), not '25h'\n", OK "restart-delay-max = 24h\n", 0 },
  { "not a duration", "x.svc", REGULAR, TEXT(OK "restart-delay = soon\n"),
    "2: restart-delay: expected a duration such as 250ms, 10s, 2m or 1h, not 'soon'\n", OK "restart-delay = 1s\n", 0 },
  { "restart-delay above restart-delay-max", "x.svc", REGULAR,
    TEXT(OK "restart-delay = 1m\nrestart-delay-max = 30s\n"),
    "2: restart-delay (60000ms) is longer than restart-delay-max (30000ms)\n",
    OK "restart-delay = 30s\nrestart-delay-max = 30s\n", 0 },
  { "restart-delay-max below the default restart-delay", "x.svc", REGULAR, TEXT(OK "restart-delay-max = 50ms\n"),
    "2: restart-delay (100ms) is longer than restart-delay-max (50ms)\n", OK "restart-delay-max = 100ms\n", 0 },

  /* umask, environment, directory */
  { "umask not octal", "x.svc", REGULAR, TEXT(OK "umask = 0800\n"),
    "2: umask: expected an octal umask such as 0022, not '0800'\n", OK "umask = 0700\n", 0 },
  { "umask too large", "x.svc", REGULAR, TEXT(OK "umask = 1777\n"),
    "2: umask: at most 0777, not '1777'\n", OK "umask = 0777\n", 0 },
  { "environment name starting with a digit", "x.svc", REGULAR, TEXT(OK "environment = 1A=b\n"),
    "2: environment: invalid variable name '1A' (letters, digits and _, not starting with a digit)\n",
    OK "environment = A1=b\n", 0 },
  { "environment name with '-'", "x.svc", REGULAR, TEXT(OK "environment = MY-VAR=1\n"),
    "2: environment: invalid variable name 'MY-VAR' (letters, digits and _, not starting with a digit)\n",
    OK "environment = MY_VAR=1\n", 0 },
  { "environment variable set twice", "x.svc", REGULAR, TEXT(OK "environment = A=1\nenvironment = A=2\n"),
    "3: environment: A is set twice\n", OK "environment = A=1\nenvironment = AB=2\n", 0 },
  { "environment without '='", "x.svc", REGULAR, TEXT(OK "environment = PATH\n"),
    "2: environment: expected NAME=VALUE, not 'PATH'\n", OK "environment = PATH=/bin\n", 0 },
  { "relative directory", "x.svc", REGULAR, TEXT(OK "directory = srv/www\n"),
    "2: directory: expected an absolute path, not 'srv/www'\n", OK "directory = /srv/www\n", 0 },

  /* resource limits */
  { "unknown resource limit", "x.svc", REGULAR, TEXT(OK "rlimit-files = 10\n"),
    "2: unknown resource limit 'rlimit-files' (known: as, core, cpu, data, fsize, locks, memlock, "
    "msgqueue, nice, nofile, nproc, rss, rtprio, rttime, sigpending, stack)\n",
    OK "rlimit-nofile = 10\n", 0 },
  { "rlimit soft above hard", "x.svc", REGULAR, TEXT(OK "rlimit-nofile = 200:100\n"),
    "2: rlimit-nofile: the soft limit is above the hard limit\n", OK "rlimit-nofile = 100:200\n", 0 },
  { "rlimit-nofile unlimited (the kernel refuses it)", "x.svc", REGULAR, TEXT(OK "rlimit-nofile = unlimited\n"),
    "2: rlimit-nofile: cannot be unlimited: the kernel caps open files at fs.nr_open (see /proc/sys/fs/nr_open); give a number\n",
    OK "rlimit-nofile = 1048576\n", 0 },
  { "rlimit soft unlimited, hard not", "x.svc", REGULAR, TEXT(OK "rlimit-core = unlimited:1M\n"),
    "2: rlimit-core: the soft limit is above the hard limit\n", OK "rlimit-core = 1M:unlimited\n", 0 },
  { "rlimit not a number", "x.svc", REGULAR, TEXT(OK "rlimit-nproc = many\n"),
    "2: rlimit-nproc: expected a number, or 'unlimited', not 'many'\n", OK "rlimit-nproc = 64\n", 0 },
  { "rlimit hard not a number", "x.svc", REGULAR, TEXT(OK "rlimit-nproc = 64:lots\n"),
    "2: rlimit-nproc: expected a number, or 'unlimited', not 'lots'\n", OK "rlimit-nproc = 64:128\n", 0 },
  { "size suffix on a count limit", "x.svc", REGULAR, TEXT(OK "rlimit-nofile = 4K\n"),
    "2: rlimit-nofile: expected a number, or 'unlimited', not '4K'\n", OK "rlimit-nofile = 4096\n", 0 },
  { "lower-case size suffix on a byte limit", "x.svc", REGULAR, TEXT(OK "rlimit-stack = 8m\n"),
    "2: rlimit-stack: expected a number, optionally with K, M, G or T, or 'unlimited', not '8m'\n",
    OK "rlimit-stack = 8M\n", 0 },
  { "rlimit equal to RLIM_INFINITY", "x.svc", REGULAR, TEXT(OK "rlimit-as = 18446744073709551615\n"),
    "2: rlimit-as: 18446744073709551615 is too large (use 'unlimited')\n", OK "rlimit-as = unlimited\n", 0 },

  /* users and groups */
  { "unknown user", "x.svc", REGULAR, TEXT(OK "user = nobody2\n"),
    "2: user: unknown user 'nobody2' (not in " PASSWD ")\n", OK "user = nobody\n", 0 },
  { "user with ':'", "x.svc", REGULAR, TEXT(OK "user = www:www\n"),
    "2: user: expected a user name or uid, not 'www:www'\n", OK "user = www\n", 0 },
  { "uid out of range", "x.svc", REGULAR, TEXT(OK "user = 4294967295\n"),
    "2: user: invalid uid '4294967295'\n", OK "user = 65534\n", 0 },
  { "uid without a passwd entry and without group", "x.svc", REGULAR, TEXT(OK "user = 5000\n"),
    "2: user: uid 5000 has no entry in " PASSWD ", so it has no primary group: set 'group' too\n",
    OK "user = 5000\ngroup = 5000\n", 0 },
  { "unknown group", "x.svc", REGULAR, TEXT(OK "user = www\ngroup = staff\n"),
    "3: group: unknown group 'staff' (not in " GROUP ")\n", OK "user = www\ngroup = audio\n", 0 },
  { "gid that is not a number", "x.svc", REGULAR, TEXT(OK "group = 12x\n"),
    "2: group: invalid gid '12x'\n", OK "group = 12\n", 0 },
  { "group with a blank", "x.svc", REGULAR, TEXT(OK "group = my group\n"),
    "2: group: expected a group name or gid, not 'my group'\n", OK "group = video\n", 0 },
  { "unknown supplementary group", "x.svc", REGULAR, TEXT(OK "groups = audio, staff\n"),
    "2: groups: unknown group 'staff' (not in " GROUP ")\n", OK "groups = audio, video\n", 0 },

  /* dependencies, one file alone */
  { "invalid service name in depends", "x.svc", REGULAR, TEXT(OK "depends = net, .hidden\n"),
    "2: depends: invalid service name '.hidden' " NAME_RULE "\n", OK "depends = net, hidden\n", 0 },
  { "service name with '/' in after", "x.svc", REGULAR, TEXT(OK "after = a/b\n"),
    "2: after: invalid service name 'a/b' " NAME_RULE "\n", OK "after = a-b\n", 0 },
  { "service name of 65 bytes in depends", "x.svc", REGULAR, TEXT(OK "depends = " A64 "a\n"),
    "2: depends: invalid service name '" A64 "a' " NAME_RULE "\n", OK "depends = " A64 "\n", 0 },
  { "self-dependency", "x.svc", REGULAR, TEXT(OK "depends = y x\n"),
    "2: depends: a service cannot name itself\n", OK "depends = y\n", 0 },
  { "self-ordering", "x.svc", REGULAR, TEXT(OK "after = x\n"),
    "2: after: a service cannot name itself\n", OK "after = y\n", 0 },

  /* signals */
  { "stop-signal STOP", "x.svc", REGULAR, TEXT(OK "stop-signal = STOP\n"),
    "2: stop-signal: STOP stops a process instead of ending it\n", OK "stop-signal = INT\n", 0 },
  { "stop-signal sigtstp", "x.svc", REGULAR, TEXT(OK "stop-signal = sigtstp\n"),
    "2: stop-signal: sigtstp stops a process instead of ending it\n", OK "stop-signal = sigterm\n", 0 },
  { "unknown signal", "x.svc", REGULAR, TEXT(OK "stop-signal = TERMINATE\n"),
    "2: stop-signal: expected a signal name such as TERM, INT, HUP or QUIT, not 'TERMINATE'\n",
    OK "stop-signal = SIGTERM\n", 0 },
  { "signal number", "x.svc", REGULAR, TEXT(OK "stop-signal = 15\n"),
    "2: stop-signal: expected a signal name such as TERM, INT, HUP or QUIT, not '15'\n",
    OK "stop-signal = TERM\n", 0 },

  /* bytes that are not text */
  { "NUL byte", "x.svc", REGULAR, TEXT(OK "description = a\0b\n"),
    "2: NUL byte in line (binary file?)\n", OK "description = ab\n", 0 },
  { "control character", "x.svc", REGULAR, TEXT(OK "description = \x1b[1mbold\n"),
    "2: control character 0x1b in line\n", OK "description = bold\n", 0 },
  { "DEL character", "x.svc", REGULAR, TEXT(OK "description = a\x7f\n"),
    "2: control character 0x7f in line\n", OK "description = a\t\n", 0 },
  { "CR line ending", "x.svc", REGULAR, TEXT(OK "description = dos\r\n"),
    "2: line ends in a carriage return (DOS line endings?)\n", OK "description = dos\n", 0 },
  { "CR inside a line", "x.svc", REGULAR, TEXT(OK "description = a\rb\n"),
    "2: control character 0x0d in line\n", OK "description = a b\n", 0 },
  { "line of 65537 bytes", "x.svc", LONG_LINE, TEXT(""),
    "2: line too long (65537 bytes; at most 65536)\n", 0, 0 },
  { "file of 1 MiB + 1 byte", "x.svc", BIG_FILE, TEXT(""),
    "0: file too large (1048577 bytes; at most 1048576)\n", 0, 0 },

  /* the file's name and kind */
  { "name not ending in .svc", "x.conf", REGULAR, TEXT(OK),
    "0: a service file's name must end in .svc\n", OK, "x.svc" },
  { "name ending in .svc.bak", "x.svc.bak", REGULAR, TEXT(OK),
    "0: a service file's name must end in .svc\n", OK, "x.svc" },
  { "name with a blank", "a b.svc", REGULAR, TEXT(OK),
    "0: invalid service name " NAME_RULE "\n", OK, "a_b.svc" },
  { "name starting with '.'", ".x.svc", REGULAR, TEXT(OK),
    "0: invalid service name " NAME_RULE "\n", OK, "x.svc" },
  { "empty name (.svc)", ".svc", REGULAR, TEXT(OK),
    "0: invalid service name " NAME_RULE "\n", OK, "s.svc" },
  { "name of 65 bytes", A64 "a.svc", REGULAR, TEXT(OK),
    "0: invalid service name " NAME_RULE "\n", OK, A64 ".svc" },
  { "directory named x.svc", "x.svc", DIRECTORY, TEXT(""),
    "0: is a directory, not a file\n", OK, 0 },
  { "dangling symbolic link", "x.svc", DANGLING, TEXT(""),
    "0: dangling symbolic link\n", OK, 0 },
  { "FIFO named x.svc", "x.svc", FIFO, TEXT(""),
    "0: not a regular file\n", OK, 0 },
  { "no such file", "x.svc", MISSING, TEXT(""),
    "0: unable to open: No such file or directory\n", OK, 0 },

  /* the cut-off: 20 problems, then one line saying the rest is unchecked */
  { "more than 20 problems", "x.svc", REGULAR,
    TEXT(Z19(Z) Z(20) Z(21) Z(22) "user = nobody2\n"),
    Z19(ZW) ZW(20) "21: too many problems: the rest of this file is not checked\n",
    Z19(ZT) ZT(20) ZT(21) ZT(22) "user = nobody\n" OK, 0 },
  { "20 problems with the last checks of the file", "x.svc", REGULAR,
    TEXT(Z19(Z) "user = nobody2\n"),
    Z19(ZW) "0: missing required key 'command'\n"
    "20: too many problems: the rest of this file is not checked\n",
    Z19(ZT) "user = nobody\n" OK, 0 },
};

static void bail(char const *what, char const *path)
{
  printf("Bail out! %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static char *join(char const *dir, char const *name)
{
  char *p = malloc(strlen(dir) + strlen(name) + 2);
  if (!p) bail("malloc", name);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

static char *new_tmpdir(void)
{
  char *d = strdup("/tmp/capinit-test.XXXXXX");
  if (!d || !mkdtemp(d)) bail("mkdtemp", "/tmp");
  return d;
}

static int remove_one(char const *path, struct stat const *st, int flag, struct FTW *ftw)
{
  (void)st; (void)flag; (void)ftw;
  return remove(path);
}

static void remove_tree(char const *dir)
{
  if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0) bail("remove", dir);
}

static void write_file(char const *path, char const *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f)) bail("write", path);
}

/* "command = /bin/true", then "description = xxx...", a line of exactly
 * n bytes before its newline. */
static void write_long_line(char const *path, size_t n)
{
  static char const head[] = OK "description = ";
  size_t len = (sizeof OK - 1) + n + 1;
  char *buf = malloc(len);
  if (!buf) bail("malloc", path);
  memcpy(buf, head, sizeof head - 1);
  memset(buf + sizeof head - 1, 'x', len - 1 - (sizeof head - 1));
  buf[len - 1] = '\n';
  write_file(path, buf, len);
  free(buf);
}

/* "command = /bin/true", then comment lines up to exactly n bytes. */
static void write_big_file(char const *path, size_t n)
{
  char *buf = malloc(n);
  size_t i;
  if (!buf) bail("malloc", path);
  memcpy(buf, OK, sizeof OK - 1);
  for (i = sizeof OK - 1; i < n; i++) buf[i] = i % 1000 == 999 || i == n - 1 ? '\n' : '#';
  write_file(path, buf, n);
  free(buf);
}

static void create_bad(bad_file const *c, char const *path)
{
  switch (c->kind) {
    case REGULAR: write_file(path, c->text, c->len); break;
    case LONG_LINE: write_long_line(path, CONF_LINE_MAX + 1); break;
    case BIG_FILE: write_big_file(path, CONF_FILE_MAX + 1); break;
    case DIRECTORY: if (mkdir(path, 0755) < 0) bail("mkdir", path); break;
    case DANGLING: if (symlink("nowhere", path) < 0) bail("symlink", path); break;
    case FIFO: if (mkfifo(path, 0644) < 0) bail("mkfifo", path); break;
    case MISSING: break;
  }
}

static void create_twin(bad_file const *c, char const *path)
{
  if (c->kind == LONG_LINE) write_long_line(path, CONF_LINE_MAX);
  else if (c->kind == BIG_FILE) write_big_file(path, CONF_FILE_MAX);
  else write_file(path, c->twin, strlen(c->twin));
}

/* Write s with every occurrence of dir replaced by "TMP". */
static void put_text(FILE *f, char const *s, char const *dir)
{
  size_t n = strlen(dir);
  char const *p;
  while ((p = strstr(s, dir))) {
    fprintf(f, "%.*sTMP", (int)(p - s), s);
    s = p + n;
  }
  fputs(s, f);
}

/* The problems as "LINE: text\n" each ("LINE: warning: text\n"), prefixed
 * with "FILE:" when about another file than path (path NULL: always, FILE
 * relative to dir). */
static char *render(diag_list const *l, char const *path, char const *dir)
{
  char *out = 0;
  size_t len = 0, i, n = strlen(dir);
  FILE *f = open_memstream(&out, &len);
  if (!f) bail("open_memstream", "");
  for (i = 0; i < l->n; i++) {
    diag const *d = &l->v[i];
    if (!path || strcmp(d->file, path))
      fprintf(f, "%s:", strncmp(d->file, dir, n) || d->file[n] != '/' ? d->file : d->file + n + 1);
    fprintf(f, "%u: %s", d->line, d->level == DIAG_WARNING ? "warning: " : "");
    put_text(f, d->text, dir);
    fputc('\n', f);
  }
  fclose(f);
  return out;
}

static svc *load(char const *path, diag_list *diags)
{
  conf_ctx ctx = { .root = ROOT, .diags = diags, .command_optional = 0, .live = 0 };
  return svc_load_file(&ctx, path);
}

static void check_bad_file(bad_file const *c)
{
  char *dir = new_tmpdir();
  char *path = join(dir, c->name);
  char *twin = join(dir, c->twin_name ? c->twin_name : c->name);
  diag_list diags = { 0, 0, 0 };
  svc *s;
  char *got;

  create_bad(c, path);
  s = load(path, &diags);
  t_ueq(s->refused, 1, "%s: refused", c->what);
  got = render(&diags, path, dir);
  t_streq(got, c->want, "%s: exactly the expected problems", c->what);
  free(got);
  svc_free(s);
  diag_free(&diags);
  remove_tree(dir);

  if (mkdir(dir, 0700) < 0) bail("mkdir", dir);
  create_twin(c, twin);
  s = load(twin, &diags);
  got = render(&diags, twin, dir);
  t_streq(got, "", "%s: control: the corrected file has no problem", c->what);
  t_ueq(s->refused, 0, "%s: control: the corrected file is not refused", c->what);
  free(got);
  svc_free(s);
  diag_free(&diags);
  remove_tree(dir);
  free(twin);
  free(path);
  free(dir);
}

/* ---- validation across services (svc_set_validate) ---------------------- */

#define MAX_FILES 6

typedef struct set_case_s {
  char const *what;
  char const *files[MAX_FILES][2];   /* name, text: DIR/services/NAME */
  char const *refused;               /* the refused services, in name order */
  char const *want;                  /* every problem, sorted: "services/NAME:LINE: text\n" */
  char const *fix[2];                /* the one file that corrects it: name, text */
} set_case;

static set_case const set_cases[] = {
  { "unknown dependency",
    { { "a.svc", OK "depends = nosuch\n" }, { "b.svc", OK "depends = a\n" }, { "c.svc", OK } },
    "a b",
    "services/a.svc:2: depends: unknown service 'nosuch'\n"
    "services/b.svc:2: depends on 'a', which is refused\n",
    { "nosuch.svc", OK } },
  { "a 2-cycle through depends",
    { { "a.svc", OK "depends = b\n" }, { "b.svc", OK "depends = a\n" }, { "c.svc", OK } },
    "a b",
    "services/a.svc:2: dependency cycle: a -> b -> a\n"
    "services/b.svc:2: dependency cycle: b -> a -> b\n",
    { "b.svc", OK } },
  { "a 2-cycle through after",
    { { "a.svc", OK "after = b\n" }, { "b.svc", "# b\n" OK "after = a\n" } },
    "a b",
    "services/a.svc:2: dependency cycle: a -> b -> a\n"
    "services/b.svc:3: dependency cycle: b -> a -> b\n",
    { "b.svc", "# b\n" OK } },
  { "a 3-cycle through depends and after, and a service that reaches it",
    { { "a.svc", OK "depends = b\n" },
      { "b.svc", "description = b\n" OK "after = c\n" },
      { "c.svc", OK "description = c\ndepends = a\n" },
      { "d.svc", OK "depends = a\n" } },
    "a b c d",
    "services/a.svc:2: dependency cycle: a -> b -> c -> a\n"
    "services/b.svc:3: dependency cycle: b -> c -> a -> b\n"
    "services/c.svc:3: dependency cycle: c -> a -> b -> c\n"
    "services/d.svc:2: depends on 'a', which is refused\n",
    { "c.svc", OK "description = c\n" } },
  { "dependencies on a refused service, transitively",
    { { "app.svc", OK "after = late\ndepends = db\n" },
      { "db.svc", OK "depends = x\n" },
      { "late.svc", OK "after = x\n" },
      { "x.svc", OK "user = nobody2\n" } },
    "app db x",
    "services/app.svc:3: depends on 'db', which is refused\n"
    "services/db.svc:2: depends on 'x', which is refused\n"
    "services/x.svc:2: user: unknown user 'nobody2' (not in " PASSWD ")\n",
    { "x.svc", OK "user = nobody\n" } },
  { "after naming an unknown service",
    { { "a.svc", OK "after = nosuch b\n" }, { "b.svc", OK } },
    "",
    "services/a.svc:2: warning: after: no service 'nosuch' here; the ordering is ignored\n",
    { "nosuch.svc", OK } },
};

static void write_services(char const *services, char const *const files[][2])
{
  size_t i;
  for (i = 0; i < MAX_FILES && files[i][0]; i++) {
    char *p = join(services, files[i][0]);
    write_file(p, files[i][1], strlen(files[i][1]));
    free(p);
  }
}

static char *refused_names(svc_set const *set)
{
  char *out = 0;
  size_t len = 0, i;
  char const *sep = "";
  FILE *f = open_memstream(&out, &len);
  if (!f) bail("open_memstream", "");
  for (i = 0; i < set->n; i++) {
    if (!set->v[i]->refused) continue;
    fprintf(f, "%s%s", sep, set->v[i]->name);
    sep = " ";
  }
  fclose(f);
  return out;
}

static size_t count_files(char const *const files[][2])
{
  size_t n = 0;
  while (n < MAX_FILES && files[n][0]) n++;
  return n;
}

/* Load DIR/services and validate it; the problems sorted as capctl check
 * prints them. */
static void load_set(char const *dir, diag_list *diags, svc_set *set, char const *what, size_t nfiles)
{
  conf_ctx ctx = { .root = ROOT, .diags = diags, .command_optional = 0, .live = 0 };
  int r = svc_set_load_dir(&ctx, set, dir);
  t_ok(r == 0 && set->n == nfiles, "%s: svc_set_load_dir read %zu services (%d, %zu)", what, nfiles, r, set->n);
  svc_set_validate(&ctx, set);
  diag_sort(diags);
}

static void check_set_case(set_case const *c)
{
  char *dir = new_tmpdir();
  char *services = join(dir, "services");
  diag_list diags = { 0, 0, 0 };
  svc_set set = { 0, 0 };
  char *got;
  size_t n = count_files(c->files);
  int fix_is_new = 1;
  size_t i;

  if (mkdir(services, 0755) < 0) bail("mkdir", services);
  write_services(services, c->files);
  load_set(dir, &diags, &set, c->what, n);
  got = refused_names(&set);
  t_streq(got, c->refused, "%s: the refused services", c->what);
  free(got);
  got = render(&diags, 0, dir);
  t_streq(got, c->want, "%s: exactly the expected problems", c->what);
  free(got);
  svc_set_free(&set);
  diag_free(&diags);

  /* the twin: the same directory with the one file corrected or added */
  for (i = 0; i < n; i++) fix_is_new = fix_is_new && strcmp(c->files[i][0], c->fix[0]);
  {
    char *p = join(services, c->fix[0]);
    write_file(p, c->fix[1], strlen(c->fix[1]));
    free(p);
  }
  load_set(dir, &diags, &set, "control", n + (size_t)fix_is_new);
  got = render(&diags, 0, dir);
  t_streq(got, "", "%s: control: the corrected directory has no problem", c->what);
  free(got);
  got = refused_names(&set);
  t_streq(got, "", "%s: control: no service refused", c->what);
  free(got);
  svc_set_free(&set);
  diag_free(&diags);
  remove_tree(dir);
  free(services);
  free(dir);
}

/* The same service name in two directories: the second file is refused
 * and not added. */
static void duplicate_names(void)
{
  char *dir = new_tmpdir();
  char *d1 = join(dir, "d1"), *d2 = join(dir, "d2");
  char *a = join(d1, "x.svc"), *b = join(d2, "x.svc"), *c = join(d2, "y.svc");
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = ROOT, .diags = &diags, .command_optional = 0, .live = 0 };
  svc_set set = { 0, 0 };
  char *got;

  if (mkdir(d1, 0755) < 0 || mkdir(d2, 0755) < 0) bail("mkdir", dir);
  write_file(a, TEXT(OK));
  write_file(b, TEXT(OK "description = second\n"));
  write_file(c, TEXT(OK "description = second\n"));

  svc_set_add_file(&ctx, &set, a);
  svc_set_add_file(&ctx, &set, b);
  got = render(&diags, 0, dir);
  t_streq(got, "d2/x.svc:0: service 'x' is already defined by TMP/d1/x.svc\n",
          "duplicate service name: the second file is refused");
  free(got);
  t_ok(set.n == 1 && !strcmp(set.v[0]->file, a) && !set.v[0]->description,
       "duplicate service name: only the first file is in the set (%zu)", set.n);
  svc_set_free(&set);
  diag_free(&diags);

  svc_set_add_file(&ctx, &set, a);
  svc_set_add_file(&ctx, &set, c);
  svc_set_validate(&ctx, &set);
  got = render(&diags, 0, dir);
  t_streq(got, "", "control: two names from two directories have no problem");
  free(got);
  t_ok(set.n == 2 && !strcmp(set.v[1]->name, "y") && !set.v[0]->refused && !set.v[1]->refused,
       "control: both services are in the set (%zu)", set.n);
  svc_set_free(&set);
  diag_free(&diags);
  remove_tree(dir);
  free(a); free(b); free(c); free(d1); free(d2); free(dir);
}

/* What svc_set_load_dir reads: DIR/services/[^.]*.svc, sorted; and a
 * missing directory is an error of the call, not a diagnostic. */
static void directory_reading(void)
{
  char *dir = new_tmpdir();
  char *services = join(dir, "services");
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = ROOT, .diags = &diags, .command_optional = 0, .live = 0 };
  svc_set set = { 0, 0 };
  int r;

  errno = 0;
  r = svc_set_load_dir(&ctx, &set, dir);
  t_ok(r == -1 && errno == ENOENT && set.n == 0 && diags.n == 0,
       "a configuration without services/: -1, ENOENT, nothing loaded (%d, %s)", r, strerror(errno));

  if (mkdir(services, 0755) < 0) bail("mkdir", services);
  {
    static char const *const files[][2] = {
      { "b.svc", OK }, { "a.svc", OK }, { ".hidden.svc", "frobnicate\n" },
      { "README", "frobnicate\n" }, { "c.svc~", "frobnicate\n" }, { 0, 0 },
    };
    write_services(services, files);
  }
  r = svc_set_load_dir(&ctx, &set, dir);
  t_ok(r == 0 && set.n == 2 && !strcmp(set.v[0]->name, "a") && !strcmp(set.v[1]->name, "b") && diags.n == 0,
       "services/ read: a.svc and b.svc in order; dot files and other names ignored (%zu, %zu problems)",
       set.n, diags.n);
  svc_set_free(&set);
  diag_free(&diags);
  remove_tree(dir);
  free(services);
  free(dir);
}

int main(void)
{
  size_t i;
  /* a FIFO that blocked the loader would hang: end the test instead */
  alarm(60);
  t_ok(sizeof bad_files / sizeof bad_files[0] >= 45, "at least 45 invalid files (%zu)",
       sizeof bad_files / sizeof bad_files[0]);
  for (i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) check_bad_file(&bad_files[i]);
  for (i = 0; i < sizeof set_cases / sizeof set_cases[0]; i++) check_set_case(&set_cases[i]);
  duplicate_names();
  directory_reading();
  return t_done();
}
