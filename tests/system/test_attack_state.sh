#!/bin/sh
# No service may write capinit's own state (capinit.svc(5), "capinit's
# own state"): its configuration directory, runtime directory, log
# directory, and the programs of legacy services.
#   1. capctl check, for each of the four: a service whose read-write
#      covers it is refused at that line, with the exact message (the
#      attack); the same file with writes-capinit-state = yes passes with
#      the same text as a warning (positive control); read-write on a
#      sibling that covers none of it passes silently (negative twin); a
#      user who may not write there passes (the permission check is
#      real).  Then the whole tree (no read-only), a group-writable log
#      directory for a legacy non-root service, a bind, and a bind-ro
#      that hides the state.
#   2. capinit itself: a service that could write the configuration
#      directory is refused and never runs (the legacy service it would
#      have added does not exist); its twin with the key runs, adds one,
#      and after a reload that one runs as root (the attack works where
#      the file allows it); the sibling twin starts.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh

FIX="refused: make it read-only (read-only = yes, a read-write or bind that does not cover it), run the service as a user that may not write it, or accept it with writes-capinit-state = yes"
M_CONF="a service file written there runs as full root at the next reload"
M_RUN="its control socket and what it keeps of each service"
M_LOG="capinit writes the logs there as root: a link planted there redirects its writes"
M_PROG="it runs as full root"

# ------------------------------------------------ 1. capctl check
sv_init
C=$T/c
S=$C/services
mkdir -p "$T/run" "$T/bin" "$T/sib"
cp /bin/true "$T/bin/daemon"
printf 'command = %s\n' "$T/bin/daemon" > "$S/legacy.svc"

check() { "$CAPCTL" check -c "$C" -r "$T/run" 2>/dev/null; echo "rc=$?"; }

# FILE LINE REGION WHAT PATH WHY MATTERS [MORE]: the error's text
msg() {
  more=
  [ -z "${8:-}" ] || more="; and $8 more of capinit's paths"
  printf 'capctl: %s:%s: error: %s: it could write %s %s (%s): %s%s; %s' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$more" "$FIX"
}
warn() { # the same as a warning, accepted at line $9
  more=
  [ -z "${8:-}" ] || more="; and $8 more of capinit's paths"
  printf 'capctl: %s:%s: warning: %s: it could write %s %s (%s): %s%s; accepted by writes-capinit-state = yes (line %s)' \
    "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$more" "$9"
}

# NAME DIR WHAT MATTERS MORE -- the four checks for one part of the state
one() {
  f=$S/a.svc
  printf 'command = /bin/true\nmode = noroot\nread-only = yes\nread-write = %s\n' "$2" > "$f"
  t_eq "$(check)" "$(msg "$f" 4 "read-write = $2" "$3" "$5" "uid 0 owns $5" "$4" "$6")
rc=1" "$1: read-write = $2 as uid 0 is refused at its line"
  printf 'writes-capinit-state = yes\n' >> "$f"
  t_eq "$(check)" "$(warn "$f" 4 "read-write = $2" "$3" "$5" "uid 0 owns $5" "$4" "$6" 5)
rc=0" "$1: control: the same with writes-capinit-state = yes passes with the warning"
  printf 'command = /bin/true\nmode = noroot\nread-only = yes\nread-write = %s\n' "$T/sib" > "$f"
  t_eq "$(check)" "rc=0" "$1: twin: read-write = \$T/sib, beside it, passes silently"
  printf 'command = /bin/true\nuser = nobody\nmode = noroot\nread-only = yes\nread-write = %s\n' "$2" > "$f"
  t_eq "$(check)" "rc=0" "$1: twin: the same read-write as nobody (root's 0755) passes"
  rm -f "$f"
}
one "config" "$C" "capinit's configuration directory" "$M_CONF" "$C" 3
one "runtime" "$T/run" "capinit's runtime directory" "$M_RUN" "$T/run"
one "log" "$T/log" "capinit's log directory" "$M_LOG" "$T/log"
one "program" "$T/bin" "the program of legacy service legacy" "$M_PROG" "$T/bin/daemon"

# the whole tree: a noroot uid 0 without read-only owns capinit's files
f=$S/a.svc
printf 'command = /bin/true\nmode = noroot\n' > "$f"
t_eq "$(check)" "$(msg "$f" 2 "the service's file tree is writable (no read-only = yes)" \
  "capinit's configuration directory" "$C" "uid 0 owns $C" "$M_CONF" 6)
rc=1" "whole tree: uncontained noroot uid 0 is refused at its mode line (and 6 more paths)"
printf 'command = /bin/true\nmode = noroot\nread-only = yes\n' > "$f"
t_eq "$(check)" "rc=0" "whole tree: twin: the same with read-only = yes passes"
rm -f "$f"

# a legacy non-root service, through its group: the log directory
# group-writable by nobody's group; the twin: the group bit off
g=$(id -g nobody)
chgrp "$g" "$T/log" && chmod 0775 "$T/log"
printf 'command = /bin/true\nuser = nobody\n' > "$f"
t_eq "$(check)" "$(msg "$f" 2 "the service's file tree is writable (no read-only = yes)" \
  "capinit's log directory" "$T/log" "$T/log is writable by its group $g, one of the service's" "$M_LOG")
rc=1" "group: a legacy nobody whose group may write the log directory is refused"
chmod 0755 "$T/log"
t_eq "$(check)" "rc=0" "group: twin: the same directory without the group's write bit passes"
chgrp 0 "$T/log"

# cap_setuid makes a nobody any uid, root's files' owner included (it
# would setresuid(0) and write); the twin: read-only
printf 'command = /bin/true\nuser = nobody\nmode = noroot\ncapabilities = setuid\n' > "$f"
t_eq "$(check | sed -n 's/.*(\(it holds [a-z_]*\)).*/\1/p;/^rc=/p' | tr '\n' ' ')" "it holds cap_setuid rc=1 " \
  "setuid: a nobody holding cap_setuid, its tree writable, is refused (it holds cap_setuid)"
printf 'command = /bin/true\nuser = nobody\nmode = noroot\ncapabilities = setuid\nread-only = yes\n' > "$f"
t_eq "$(check)" "capctl: $f:4: warning: capabilities: cap_setuid opens a way out of its container: any uid: every other service's files and processes
rc=0" "setuid: twin: the same with read-only = yes passes (warned: cap_setuid is any uid)"

# a bind onto the state; a bind-ro of the state under a wider read-write
printf 'command = /bin/true\nmode = noroot\nread-only = yes\nbind = %s:/mnt\n' "$T/run" > "$f"
t_eq "$(check)" "$(msg "$f" 4 "bind = $T/run:/mnt" "capinit's runtime directory" "$T/run" "uid 0 owns $T/run" "$M_RUN")
rc=1" "bind: the runtime directory bound writable elsewhere is refused"
printf 'command = /bin/true\nmode = noroot\nread-only = yes\nread-write = %s\nbind-ro = %s\n' "$T" "$C $T/run $T/log $T/bin" > "$f"
t_eq "$(check)" "rc=0" "bind-ro: read-write = \$T with the state's four directories bound read-only passes"
printf 'command = /bin/true\nmode = noroot\nread-only = yes\nread-write = %s\nbind-ro = %s\n' "$T" "$C $T/run $T/bin" > "$f"
t_eq "$(check)" "$(msg "$f" 4 "read-write = $T" "capinit's log directory" "$T/log" "uid 0 owns $T/log" "$M_LOG")
rc=1" "bind-ro: control: the log directory left out of the bind-ro is refused"
rm -f "$f" "$S/legacy.svc"

# ------------------------------------------------ 2. capinit itself
# each writer adds a legacy service that would touch a file as root
adds() { # FILE MARK
  printf '/bin/sh -c "echo command = /bin/touch %s > %s"' "$2" "$1"
}
svc writer <<EOF
type = oneshot
command = $(adds "$S/evil.svc" "$T/pwned")
mode = noroot
read-only = yes
read-write = $C
EOF
svc allowed <<EOF
type = oneshot
command = $(adds "$S/evil2.svc" "$T/pwned2")
mode = noroot
read-only = yes
read-write = $C
writes-capinit-state = yes
EOF
svc sibling <<EOF
type = oneshot
command = /bin/touch $T/sib/ran
mode = noroot
read-only = yes
read-write = $T/sib
EOF
sv_start
t_ok $? "capinit starts"
sv_wait allowed up 60 && sv_wait sibling up 60
t_ok $? "allowed and sibling ran (oneshots: up once exited 0)"
t_eq "$(sv_field writer state)" "failed" "writer: refused (failed, never started)"
t_eq "$(sv_field writer failure)" "invalid service file (capctl check)" "writer: the reason is its file"
grep -qxF "$(msg "$S/writer.svc" 5 "read-write = $C" "capinit's configuration directory" "$C" "uid 0 owns $C" "$M_CONF" 3 |
  sed 's/^capctl: /capinit: /')" "$T/capinit.out"
t_ok $? "writer: capinit's output has the error at read-write's line"
grep -qF "capinit: $S/allowed.svc:5: warning: read-write = $C: it could write capinit's configuration directory" "$T/capinit.out"
t_ok $? "allowed: capinit's output has the warning"
t_eq "$([ -e "$S/evil.svc" ] && echo added || echo absent)" absent "writer: the legacy service it would add does not exist"
t_eq "$(cat "$S/evil2.svc" 2>&1)" "command = /bin/touch $T/pwned2" "control: allowed (its file accepts it) added a legacy service"
t_eq "$([ -e "$T/sib/ran" ] && echo ran)" ran "twin: sibling (read-write beside the state) ran"
nsenter -t "$sv_nspid" -p "$CAPCTL" reload -r "$T/run" >/dev/null 2>&1
i=0
while [ ! -e "$T/pwned2" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(stat -c %u "$T/pwned2" 2>&1)" 0 "control: after a reload, the added legacy service ran as root"
t_eq "$([ -e "$T/pwned" ] && echo pwned || echo absent)" absent "the refused writer's mark never appears"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0 on SIGTERM"

t_done
