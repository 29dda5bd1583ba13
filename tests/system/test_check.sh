#!/bin/sh
# System tests of `capctl check`: the real binary on real directories.
B=${1:-build}
. tests/lib.sh
CAPCTL=$(pwd)/$B/bin/capctl
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=$(pwd)/tests/unit/root

# --- 3 good files and 2 bad ones --------------------------------------
mkdir -p "$T/c/services"
S=$T/c/services
printf 'command = /bin/sleep 1000\nuser = www\nmode = noroot\ncapabilities = net_bind_service\n' > "$S/web.svc"
printf 'type = oneshot\ncommand = /bin/true\ncapabilities = net_admin\nmode = noroot\nread-only = yes\nnetwork = none\n' > "$S/net.svc"
printf '# a comment\n\ncommand = "/bin/sh" -c "exec sleep 1000"\ndepends = net\n' > "$S/shell.svc"
printf 'command = /bin/true\nusr = www\nready = fd:1\n' > "$S/bad1.svc"
printf 'description = x\ncommand = /bin/true\ncapabilities = net_raw\nbounding = chown\ndepends = nosuch\n' > "$S/bad2.svc"

out=$("$CAPCTL" check -R "$R" -c "$T/c" 2>"$T/err"); rc=$?
t_eq "$rc" 1 "3 good + 2 bad: exit status 1"
t_eq "$out" "capctl: $S/bad1.svc:2: error: unknown key 'usr' (did you mean 'user'?)
capctl: $S/bad1.svc:3: error: ready: fd:1 is stdin, stdout or stderr: use a descriptor of 3 or more
capctl: $S/bad2.svc:3: error: capabilities: cap_net_raw not in the bounding set (line 4): add it to 'bounding' or remove it here
capctl: $S/bad2.svc:5: error: depends: unknown service 'nosuch'" \
  "3 good + 2 bad: exactly the bad files' problems, as PROG: FILE:LINE: error: text"
t_eq "$(cat "$T/err")" "capctl: 4 errors, 0 warnings; 2 services refused" "summary line on stderr"

mv "$S/bad1.svc" "$S/bad1.off"; mv "$S/bad2.svc" "$S/bad2.off"
out=$("$CAPCTL" check -R "$R" -c "$T/c" 2>&1); rc=$?
t_eq "$rc" 0 "3 good files: exit status 0"
t_eq "$out" "" "3 good files: no output"

# an empty services directory (what the Debian package installs): valid,
# and said; a missing one is an error
mkdir -p "$T/e/services"
out=$("$CAPCTL" check -R "$R" -c "$T/e" 2>&1); rc=$?
t_eq "$rc:$out" "0:capctl: no service files in $T/e/services: capinit would start no service (one NAME.svc file each, capinit.svc(5))" \
  "an empty services directory: exit 0, and check says that capinit would start nothing"
rmdir "$T/e/services"
out=$("$CAPCTL" check -R "$R" -c "$T/e" 2>&1); rc=$?
t_eq "$rc:$out" "111:capctl: fatal: unable to read directory $T/e/services: No such file or directory" \
  "control: no services directory at all is an error"

# FILE arguments: only the named files are reported; siblings resolve deps
out=$("$CAPCTL" check -R "$R" "$S/shell.svc" 2>&1); rc=$?
t_eq "$rc:$out" "0:" "one file whose dependency is a sibling: valid"
mv "$S/net.svc" "$S/net.off"
out=$("$CAPCTL" check -R "$R" "$S/shell.svc" 2>/dev/null); rc=$?
t_eq "$rc:$out" "1:capctl: $S/shell.svc:4: error: depends: unknown service 'net'" "the same file without its sibling: unknown dependency"
mv "$S/net.off" "$S/net.svc"

# --- bad input never crashes: each case has a clear message ------------
mkdir -p "$T/b/services"
S=$T/b/services
bad() { # NAME EXPECTED WHAT -- check the one file, exact output and status
  # EXPECTED: ":LINE: text", or ": text" about the whole file
  out=$("$CAPCTL" check -R "$R" "$S/$1" 2>/dev/null); rc=$?
  t_eq "$rc:$out" "1:capctl: $S/$1$(printf '%s' "$2" | sed 's/^\(:[0-9][0-9]*\)\{0,1\}: /&error: /')" "$3"
  rm -rf "$S/$1"
}
good() { # NAME WHAT -- positive control: the same kind of input, valid
  out=$("$CAPCTL" check -R "$R" "$S/$1" 2>&1); rc=$?
  t_eq "$rc:$out" "0:" "$2"
  rm -rf "$S/$1"
}

: > "$S/empty.svc"
bad empty.svc ": missing required key 'command'" "empty file"
printf 'command = /bin/true\n' > "$S/empty.svc"
good empty.svc "control: a one-line file loads"

{ printf 'command = /bin/true\ndescription = '; head -c 1048570 /dev/zero | tr '\0' x; printf '\n'; } > "$S/long.svc"
bad long.svc ": file too large (1048605 bytes; at most 1048576)" "a 1 MiB line (file over 1 MiB)"
{ printf 'command = /bin/true\ndescription = '; head -c 70000 /dev/zero | tr '\0' x; printf '\n'; } > "$S/long.svc"
bad long.svc ":2: line too long (70014 bytes; at most 65536)" "a 70000-byte line"
{ printf 'command = /bin/true\ndescription = '; head -c 65000 /dev/zero | tr '\0' x; printf '\n'; } > "$S/long.svc"
good long.svc "control: a 65000-byte line loads"

printf 'command = /bin/true\n\177ELF\001\002\000\000binary\n' > "$S/bin.svc"
bad bin.svc ":2: control character 0x7f in line" "binary data"
head -c 4096 /dev/urandom > "$S/rand.svc"
out=$("$CAPCTL" check -R "$R" "$S/rand.svc" 2>/dev/null); rc=$?
t_eq "$rc:$(echo "$out" | head -n 1 | sed 's/^capctl: \([^:]*\):.*/\1/')" "1:$S/rand.svc" "random bytes: refused with messages, no crash"
rm -f "$S/rand.svc"

mkdir "$S/dir.svc"
bad dir.svc ": is a directory, not a file" "a file that is a directory"
ln -s "$S/nowhere" "$S/dangling.svc"
bad dangling.svc ": dangling symbolic link" "a dangling symlink"
printf 'command = /bin/true\n' > "$T/target"
ln -s "$T/target" "$S/link.svc"
good link.svc "control: a symlink to a valid file loads"
mkfifo "$S/fifo.svc"
bad fifo.svc ": not a regular file" "a FIFO (must not block)"

printf 'command = /bin/true\ndepends = ../etc/passwd\n' > "$S/slash.svc"
bad slash.svc ":2: depends: invalid service name '../etc/passwd' (letters, digits, '_', '.', '@', '-'; at most 64; not starting with '.')" "a service name with '/'"
out=$("$CAPCTL" check -R "$R" "$S/no/such.svc" 2>/dev/null); rc=$?
t_eq "$rc:$out" "1:capctl: $S/no/such.svc: error: unable to open: No such file or directory" "a path through a missing directory"
printf 'command = /bin/true\n' > "$S/a b.svc"
bad "a b.svc" ": invalid service name (letters, digits, '_', '.', '@', '-'; at most 64; not starting with '.')" "a file name with a blank"
printf 'command = /bin/true\n' > "$S/x.conf"
bad x.conf ": a service file's name must end in .svc" "a file name without .svc"

# --- usage and system errors ----------------------------------------------
"$CAPCTL" check -c "$T/none" >/dev/null 2>"$T/err"; rc=$?
t_eq "$rc:$(cat "$T/err")" "111:capctl: fatal: unable to read directory $T/none/services: No such file or directory" "missing config directory: 111 with the reason"
"$CAPCTL" check -x >/dev/null 2>&1; t_eq "$?" 100 "unknown option: 100"
"$CAPCTL" check -c "$T/c" "$S/x.svc" >/dev/null 2>&1; t_eq "$?" 100 "-c with FILE: 100"
"$CAPCTL" frobnicate >/dev/null 2>"$T/err"; rc=$?
t_eq "$rc:$(cat "$T/err")" "100:capctl: fatal: unknown verb 'frobnicate' (capctl --help lists them)" "unknown verb: 100"
"$CAPCTL" --help | grep -q '^usage: capctl \[OPTIONS\] VERB'; t_ok $? "--help prints usage"
t_eq "$("$CAPCTL" --version)" "capctl 0.1.0" "--version"

# --- the binary itself (not in a sanitizer build) ---------------------------
if [ -z "${CAPINIT_SAN:-}" ]; then
  f=$(file -b "$B/bin/capctl")
  case $f in *"statically linked"*) r=0 ;; *) r=1 ;; esac
  t_ok $r "capctl is statically linked ($f)"
  case $f in *", stripped"*) r=0 ;; *) r=1 ;; esac
  t_ok $r "capctl is stripped"
fi

# --- capabilities that open a way out of a container (one line each) ----------
mkdir -p "$T/e/services"
E=$T/e/services
printf 'command = /bin/true\nmode = noroot\nread-only = yes\ncapabilities = sys_ptrace, kill, net_bind_service\n' > "$E/out.svc"
printf 'command = /bin/true\ncapabilities = sys_ptrace, kill\n' > "$E/legacy.svc"
printf 'command = /bin/true\nmode = noroot\nread-only = yes\ncapabilities = dac_read_search\n' > "$E/handles-denied.svc"
printf 'command = /bin/true\nmode = noroot\nread-only = yes\ncapabilities = dac_read_search\nsystem-calls = +@file-handles\n' > "$E/handles.svc"
printf 'command = /bin/true\nmode = noroot\nread-only = yes\ncapabilities = net_admin\nnetwork = none\n' > "$E/netns.svc"
out=$("$CAPCTL" check -R "$R" -c "$T/e" 2>&1); rc=$?
t_eq "$rc:$out" "0:capctl: $E/handles.svc:4: warning: capabilities: cap_dac_read_search opens a way out of its container: open_by_handle_at opens any file of a file system by its number, past every mount and root-directory
capctl: $E/out.svc:4: warning: capabilities: cap_sys_ptrace opens a way out of its container: ptrace and /proc/PID/mem reach any process it can see, of any uid, capinit's children included
capctl: $E/out.svc:4: warning: capabilities: cap_kill opens a way out of its container: signals to any process, capinit included
capctl: 0 errors, 3 warnings; 0 services refused" \
  "a contained service's way-out capabilities: warned, one line each; none for cap_net_bind_service, a legacy service (control), file handles its filter denies, or cap_net_admin in a network of its own"
t_done
