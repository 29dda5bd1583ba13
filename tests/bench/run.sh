#!/bin/sh
# tests/bench/run.sh BUILDDIR full|quick|report -- capinit against s6, runit and
# the physical limit (tests/bench/baseline.c).  make bench and make
# bench-quick run it, as root, after building what it needs.
#
# For each N, the configuration of every supervisor is generated first (not
# timed).  Then rounds of runs, interleaved: baseline, capinit, s6, runit
# with the plain service (every metric), then the same four with the
# privileged service (uid/gid 65534, no groups, securebits 0x2f, bounding =
# inheritable = ambient = cap_net_bind_service: capinit with its own keys,
# the others through setpriv; cold start), then pairs of capinit plain and
# privileged cold starts side by side (capinit's privilege overhead), then
# the privilege microbenchmark (privsyscalls).  A warm-up round (cold start
# only) comes first and is discarded.  Each run is one supervisor in a
# fresh `unshare --pid --fork --mount-proc`, measured from inside by
# tests/bench/nsrun.c (see there for each metric).
#
# Application containers (issue 15), at the N of BENCH_CTNS, in each round
# after the pairs: five runs side by side, each service the privileged one
# (as above) and, but for ctplain, in a container of its own:
#   ctplain   capinit, the plain service (cold start and memory: the control)
#   ct        capinit, private-pids, private-ipc, hostname = bench,
#             network = none: namespaces mount (with its own /proc), PID,
#             IPC, UTS and network (lo up) (cold start and memory)
#   ctnonet   capinit, the same but network = host (cold start: ct minus
#             ctnonet is what the network namespaces cost)
#   chain     the baseline starting each service as `unshare --mount --pid
#             --fork --ipc --uts --net --mount-proc sh chain.sh setpriv ...
#             svc_record`, where chain.sh sets the host name and brings lo
#             up (hostname, ip) before it executes setpriv: the same view,
#             with the tools a system without capinit has (cold start and
#             memory)
#   chainbare the same without chain.sh: no host name, lo down (less than
#             the view: the least any such chain costs; cold start)
# nsrun checks each run from /proc: every service in namespaces of its own
# (none shared) of exactly the types asked, its /proc its own, its host
# name and lo (tests/bench/nsrun.c: -C, -H, -L).  After each of these runs,
# tests/bench/netns_settle.c waits until the kernel has torn down the
# run's network namespaces (asynchronous: cleanup_net), so that no run
# pays for the one before, and its time is recorded (after ctplain: its
# own cost with nothing to wait for), as is the time the kernel took to end
# the run's processes (SIGKILL to its PID 1 until they are all reaped).
#
# Then, with the machine otherwise idle, the root-free appliance boots in
# QEMU (TCG) BENCH_BOOTS times, one at a time: the stock image (rootfs/,
# cpio), built into the scratch directory by rootfs/build.sh from the same
# capinit right after the snapshot of the binaries, booted by
# `rootfs/qemu.sh boot` (make boot's command line; HOST_PORT=0: any free
# port for its httpd forward) under tests/bench/bootwatch.c, which reads
# the console: capinit's "all N services ready X ms after capinit started"
# (its own clock), the host's CLOCK_MONOTONIC from QEMU's start to that
# line, then "poweroff" typed on the console and the time to QEMU's exit.
#
#   full   N = 10 100 1000 3000, every metric at every N, 5 rounds with a
#          warm-up for each N, 10 s idle window, 30 restarts, 3 pairs;
#          containers at N = 100 and 1000;
#          3 QEMU boots (about 17 s with the image on an idle machine,
#          more under load); writes
#          docs/benchmarks.md and docs/bench-{coldstart,memory}.svg
#   quick  N = 10 100 1000, every metric at N = 1000, cold starts at the
#          others, the peers' privileged variant up to N = 100, 1 round,
#          one warm-up (N = 10, and the containers' at N = 100), 3 s idle
#          window, 5 restarts, 5 pairs, containers at N = 100 (about
#          a minute and a half); no QEMU boot (one would add about 8 s on an idle
#          machine, image included, and far more under load, would say
#          little alone, and would make bench-quick need QEMU, the kernel
#          package and the image); prints the ratio table only
#   report the report of BUILDDIR/bench-results.txt again (no run)
#
# Overrides (for experiments): BENCH_NS (none: no supervisor run, only
# the boots), BENCH_FULLN (the N with every metric), BENCH_ROUNDS,
# BENCH_IDLE_MS, BENCH_TRIALS, BENCH_PAIRS,
# BENCH_SUPS (default "baseline capinit s6 runit"), BENCH_CTNS (the N of
# the containers' runs; none: no container run; they need capinit and the
# baseline in BENCH_SUPS),
# BENCH_RUNSCRIPT (execline or sh: the peers' run scripts; execline),
# BENCH_BOOTS (QEMU boots; 3 in full mode, 0 in quick; 0: none; in quick
# mode they need make image's inputs: make image first), BENCH_IMAGE (boot
# this image directory, e.g. build/appliance after make image FORMAT=ext4,
# instead of building one), BENCH_OUT (where the full mode writes; docs).
# The boots alone, without touching docs/:
#   BENCH_NS=none BENCH_OUT=/tmp/benchout sh tests/bench/run.sh build full
# (it still replaces BUILDDIR/bench-results.txt; results without a
# supervisor run never replace docs/benchmarks.md: without BENCH_OUT the
# report only prints its table).  Raw results are kept in
# BUILDDIR/bench-results.txt.  A failed sanity check (a service count not
# reached, a wrong privileged state, a supervisor that did not start, a
# boot that did not reach ready or power off cleanly) stops everything
# with a message and exit status 1.
set -u
B=${1:-build}
MODE=${2:-quick}
HERE=$(cd "$(dirname "$0")" && pwd)
B=$(cd "$B" && pwd)
case $MODE in
  full) ns="10 100 1000 3000"; fulln=$ns; warm=each; rounds=5; idle_ms=10000; trials=30; pairs=3; micro=2000; peers_priv_max=1000000; boots=3; ctns="100 1000" ;;
  quick) ns="10 100 1000"; fulln=1000; warm=first; rounds=1; idle_ms=3000; trials=5; pairs=5; micro=300; peers_priv_max=100; boots=0; ctns=100 ;;
  report) ns=; fulln=; warm=; rounds=; idle_ms=; trials=; pairs=; micro=; peers_priv_max=; boots=0; ctns= ;;  # the report of BUILDDIR/bench-results.txt
  *) echo "bench: usage: run.sh BUILDDIR full|quick|report" >&2; exit 100 ;;
esac
ns=${BENCH_NS:-$ns}
[ "$ns" = none ] && ns=
fulln=${BENCH_FULLN:-$fulln}
pairs=${BENCH_PAIRS:-$pairs}
rounds=${BENCH_ROUNDS:-$rounds}
idle_ms=${BENCH_IDLE_MS:-$idle_ms}
trials=${BENCH_TRIALS:-$trials}
sups=${BENCH_SUPS:-baseline capinit s6 runit}
ctns=${BENCH_CTNS:-$ctns}
[ "$ctns" = none ] && ctns=
case " $sups " in *" capinit "*) ;; *) ctns= ;; esac
case " $sups " in *" baseline "*) ;; *) ctns= ;; esac
runscript=${BENCH_RUNSCRIPT:-execline}
out_dir=${BENCH_OUT:-docs}
[ "$MODE" = report ] || boots=${BENCH_BOOTS:-$boots}
image=${BENCH_IMAGE:-}
ROOT=$(cd "$HERE/../.." && pwd)

die() { echo "bench: fatal: $*" >&2; exit 1; }
progress() { printf '%s' "$*" >&2; }
[ "$(id -u)" = 0 ] || die "must run as root (PID namespaces, setpriv, uid 65534)"
for f in "$B/bin/capinit" "$B/bench/svc_record" "$B/bench/baseline" "$B/bench/nsrun" \
  "$B/bench/privsyscalls" "$B/bench/netns_settle" /usr/bin/s6-svscan /usr/bin/runsvdir /usr/bin/setpriv \
  /usr/bin/unshare /usr/lib/execline/bin/execlineb; do
  [ -x "$f" ] || die "$f is missing (make bench builds and installs everything)"
done
# the reference chain's tools (absolute paths: the baseline has no PATH search)
HOSTNAME_BIN=$(command -v hostname) && IP_BIN=$(command -v ip) ||
  [ -z "$ctns" ] || die "hostname or ip (iproute2) is missing (make bench installs them)"
case $boots in '' | *[!0-9]*) die "BENCH_BOOTS must be a number (0: no QEMU boot)" ;; esac
if [ "$boots" -gt 0 ]; then
  [ -x "$B/bench/bootwatch" ] || die "$B/bench/bootwatch is missing (make bench builds it)"
  command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (make bench and make image install it)"
  if [ -n "$image" ]; then
    image=$(cd "$image" 2>/dev/null && pwd) && [ -f "$image/format" ] || die "BENCH_IMAGE: no image in ${BENCH_IMAGE} (make image)"
  else
    for f in "$B/rootfs/pinger" "$B/debs/busybox-static/bin/busybox" "$B/debs/linux-image.name"; do
      [ -e "$f" ] || die "$f is missing: the QEMU boots need make image's inputs (make bench builds them; or make image first, or BENCH_BOOTS=0)"
    done
  fi
fi

T=$(mktemp -d /tmp/capinit-bench.XXXXXX) || exit 1
chmod 755 "$T"  # the privileged services (uid 65534) open $T/fifo
RES=$B/bench-results.txt
[ "$MODE" = report ] || : >"$RES"
upid=
label=
settle=
# the runs' cgroups (cgroup v2), under run.sh's own: CGB/rK for the K-th run
CGB=
runs=0
cg2=$(sed -n 's/^[^ ]* [^ ]* [^ ]* [^ ]* \([^ ]*\) .* - cgroup2 .*/\1/p' /proc/self/mountinfo | head -n 1)
cgself=$(sed -n 's/^0:://p' /proc/self/cgroup)
if [ "$MODE" != report ] && [ -n "$cg2" ] && [ -n "$cgself" ] && mkdir "$cg2${cgself%/}/capinit-bench.$$" 2>/dev/null; then
  CGB=$cg2${cgself%/}/capinit-bench.$$
fi
cold_deadline=120
# Ends the current run: SIGKILL to the namespace's PID 1 (the supervisor)
# kills every process of the namespace.  $upid is the subshell, its child
# unshare, whose child is PID 1.
kill_run() {
  [ -n "$upid" ] || return 0
  for u in $(cat /proc/"$upid"/task/"$upid"/children 2>/dev/null); do
    p1=$(cat /proc/"$u"/task/"$u"/children 2>/dev/null)
    [ -n "$p1" ] && kill -KILL $p1 2>/dev/null
  done
  wait "$upid" 2>/dev/null
  upid=
}
cleanup() {
  rm -f "$T/out"
  kill_run
  [ -z "$CGB" ] || rmdir "$CGB"/r* "$CGB" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A snapshot of the binaries: a rebuild during the run changes nothing.
mkdir "$T/bin"
cp "$B/bin/capinit" "$B/bench/svc_record" "$B/bench/baseline" "$B/bench/nsrun" \
  "$B/bench/privsyscalls" "$B/bench/netns_settle" "$T/bin/" || die "unable to copy the binaries"
# The image the boots use, from the same capinit (rootfs/build.sh takes
# BUILDDIR's binaries: built now, and compared with the snapshot).
if [ "$boots" -gt 0 ]; then
  cp "$B/bench/bootwatch" "$T/bin/" || die "unable to copy bootwatch"
  if [ -z "$image" ]; then
    image=$T/appliance
    progress "bench: building the appliance image for the QEMU boots (rootfs/build.sh -f cpio)..."
    sh "$ROOT/rootfs/build.sh" -f cpio "$B" "$image" >"$T/image.log" 2>&1 || {
      sed 's/^/  /' "$T/image.log" >&2
      die "rootfs/build.sh failed"
    }
    cmp -s "$B/bin/capinit" "$T/bin/capinit" || die "$B/bin/capinit changed while the image was built: run again"
    progress " done
"
  fi
fi
capinit_rev=$(git -C "$HERE" describe --always --dirty 2>/dev/null || echo unknown)
REC=$T/bin/svc_record
FIFO=$T/fifo
SETPRIV="/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
--securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked \
--inh-caps=-all,+net_bind_service --ambient-caps=+net_bind_service --bounding-set=-all,+net_bind_service --"

# ---------------------------------------------------------- configuration

svc_cmd() { # VARIANT -> the service's argv
  if [ "$1" = priv ]; then echo "$SETPRIV $REC $FIFO"; else echo "$REC $FIFO"; fi
}

# gen N VARIANT: every supervisor's configuration for N services, written
# by one awk (thousands of files without thousands of processes):
#   capinit-V/services/sNNNNN.svc, capinit-V/capinit.conf
#   s6-V/sNNNNN/run            s6-svscan's scan directory
#   runit-V/sNNNNN/run         runsvdir's, up to 1000 services; above, two
#   runit-V/gK/run, runit-V.sub/gK/sNNNNN/run   levels: runsvdir of runsvdirs
#   base-V.list                the baseline's argv list
gen() {
  d=$T/n$1
  mkdir -p "$d"
  awk -v n="$1" -v v="$2" -v d="$d" -v cmd="$(svc_cmd "$2")" -v rec="$REC $FIFO" \
    -v runscript="$runscript" -v logdir="$T/log" '
    function script(file, argv) {
      if (runscript == "sh") printf "#!/bin/sh\nexec %s\n", argv > file
      else printf "#!/usr/lib/execline/bin/execlineb -P\n%s\n", argv > file
      close(file)
      print file > runfiles
    }
    BEGIN {
      dirs = d "/dirs-" v
      runfiles = d "/runfiles-" v
      groups = int((n + 999) / 1000)  # runsvdir supervises at most 1000 services
      print d "/capinit-" v "/services" > dirs
      for (g = 1; groups > 1 && g <= groups; g++) {
        print d "/runit-" v "/g" g > dirs
        print d "/runit-" v ".sub/g" g > dirs
      }
      if (groups == 1) print d "/runit-" v > dirs
      for (i = 1; i <= n; i++) {
        name = sprintf("s%05d", i)
        print d "/s6-" v "/" name > dirs
        if (groups > 1) rd[i] = d "/runit-" v ".sub/g" ((i - 1) % groups + 1) "/" name
        else rd[i] = d "/runit-" v "/" name
        print rd[i] > dirs
      }
      close(dirs)
      if (system("xargs mkdir -p < \"" dirs "\"")) exit 1
      printf "log-directory = %s\n", logdir > (d "/capinit-" v "/capinit.conf")
      for (g = 1; groups > 1 && g <= groups; g++)
        script(d "/runit-" v "/g" g "/run", "/usr/bin/runsvdir " d "/runit-" v ".sub/g" g)
      for (i = 1; i <= n; i++) {
        name = sprintf("s%05d", i)
        f = d "/capinit-" v "/services/" name ".svc"
        printf "command = %s\nlog = none\n", rec > f
        if (v == "priv")
          printf "user = 65534\ngroup = 65534\ngroups =\nmode = noroot\ncapabilities = net_bind_service\n" > f
        close(f)
        script(d "/s6-" v "/" name "/run", cmd)
        script(rd[i] "/run", cmd)
        print cmd > (d "/base-" v ".list")
      }
      close(runfiles)
      if (system("xargs chmod 755 < \"" runfiles "\"")) exit 1
    }' || die "unable to generate the configuration for N = $1"
}

# gen_ct N: the containers' configurations (ctplain is gen's plain one):
#   capinit-ct/services/sNNNNN.svc, capinit-ctnonet/...   capinit's
#   base-chain.list, base-chainbare.list                   the baseline's
# Every service is svc_record with "ns" (its record names its PID
# namespace) and the privileged variant's credentials.
CT_KEYS='private-pids = yes\nprivate-ipc = yes\nhostname = bench'  # awk -v: \n is a newline
gen_ct() {
  d=$T/n$1
  mkdir -p "$d/capinit-ct/services" "$d/capinit-ctnonet/services" || die "mkdir $d"
  printf 'log-directory = %s\n' "$T/log" | tee "$d/capinit-ct/capinit.conf" >"$d/capinit-ctnonet/capinit.conf"
  # the chain's glue: neither unshare nor setpriv sets a host name or
  # brings an interface up, and no packaged tool does one and then
  # executes the next
  printf '#!/bin/sh\n%s bench && %s link set lo up && exec "$@"\n' "$HOSTNAME_BIN" "$IP_BIN" >"$T/chain.sh"
  chmod 755 "$T/chain.sh"
  awk -v n="$1" -v d="$d" -v rec="$REC $FIFO ns" -v setpriv="$SETPRIV" -v keys="$CT_KEYS" -v chain="$T/chain.sh" '
    BEGIN {
      unshare = "/usr/bin/unshare --mount --pid --fork --ipc --uts --net --mount-proc"
      for (i = 1; i <= n; i++) {
        name = sprintf("s%05d", i)
        common = "command = " rec "\nlog = none\nuser = 65534\ngroup = 65534\ngroups =\nmode = noroot\n" \
          "capabilities = net_bind_service\n" keys "\n"
        f = d "/capinit-ct/services/" name ".svc"
        printf "%snetwork = none\n", common > f
        close(f)
        f = d "/capinit-ctnonet/services/" name ".svc"
        printf "%s", common > f
        close(f)
        print unshare " /bin/sh " chain " " setpriv " " rec > (d "/base-chain.list")
        print unshare " " setpriv " " rec > (d "/base-chainbare.list")
      }
    }' || die "unable to generate the containers' configuration for N = $1"
}

# What a supervisor leaves in its configuration: removed before each run,
# so that every run starts from the same files.
reset_state() { # DIR...
  for dir in "$@"; do
    [ -d "$dir" ] || continue
    rm -rf "$dir/.s6-svscan"
    find "$dir" -mindepth 2 -maxdepth 2 \( -name supervise -o -name event \) -exec rm -rf {} +
  done
}

# ------------------------------------------------------------------ a run

# run_one SUPERVISOR VARIANT N ROUND NSRUN-OPTIONS...: appends
# "N ROUND VARIANT SUPERVISOR key value..." lines to $RES
run_one() {
  sup=$1 v=$2 n=$3 r=$4
  shift 4
  d=$T/n$n
  cv=$v
  [ "$v" = ctplain ] && cv=plain
  case $sup in
    baseline) set -- "$@" -- "$T/bin/baseline" "$d/base-$cv.list" ;;
    capinit)
      rm -rf "$T/rt" "$T/log"
      set -- "$@" -- "$T/bin/capinit" --container -c "$d/capinit-$cv" -r "$T/rt" ;;
    s6)
      reset_state "$d/s6-$v"
      # s6-svscan 2.11 refuses more than 500 services without -c
      set -- "$@" -- /usr/bin/s6-svscan -c "$n" "$d/s6-$v" ;;
    runit)
      reset_state "$d/runit-$v" "$d/runit-$v.sub"/*
      set -- "$@" -- /usr/bin/runsvdir "$d/runit-$v" ;;
    *) die "unknown supervisor $sup" ;;
  esac
  # the containers' variants have the privileged credentials too, and
  # namespaces to check (nsrun -C, -H, -L)
  case $v in
    priv) set -- -p "$@" ;;
    ct | chain) set -- -p -C mnt,pid,ipc,uts,net -H bench -L "$@" ;;
    ctnonet) set -- -p -C mnt,pid,ipc,uts -H bench "$@" ;;
    chainbare) set -- -p -C mnt,pid,ipc,uts,net "$@" ;;
  esac
  rm -f "$FIFO" "$T/out"
  mkfifo -m 666 "$FIFO" || die "mkfifo $FIFO"
  mkfifo -m 600 "$T/out" || die "mkfifo $T/out"
  # The collector writes the results to the FIFO $T/out.  If nsrun never
  # gets that far, the subshell's ": >" ends the wait (an end of file);
  # after a normal end, $T/out is removed first, so it just makes a file.
  # In a cgroup of its own when there is one (nsrun -G): the CPU time of
  # the whole run, exited processes included, and its stalls.
  cg=
  if [ -n "$CGB" ]; then
    runs=$((runs + 1))
    cg=$CGB/r$runs
    mkdir "$cg" || die "unable to create the cgroup $cg"
    set -- -G "$@"
  fi
  (
    sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1; shift; exec "$@"' sh "$cg" \
      unshare --pid --fork --mount-proc "$T/bin/nsrun" -n "$n" -f "$FIFO" -o "$T/out" \
      -l "$T/sup.log" -T "$cold_deadline" "$@" 2>"$T/unshare.err"
    : >"$T/out"
  ) &
  upid=$!
  timeout 1800 cat "$T/out" >"$T/res.txt"
  rm -f "$T/out"
  k0=$(date +%s%N)
  kill_run
  # the containers' runs: how long the kernel takes to end every process
  # of the run (their namespaces but the network ones go with them)
  [ -z "$settle" ] || echo "kill_ns $(($(date +%s%N) - k0))" >>"$T/res.txt"
  [ -z "$cg" ] || rmdir "$cg" || die "unable to remove the cgroup $cg (a process of the run left?)"
  if ! grep -qx done "$T/res.txt"; then
    echo "bench: $sup ($v, N = $n, round $r) failed:" >&2
    sed 's/^/  /' "$T/res.txt" >&2
    echo "  last lines of the supervisor's output:" >&2
    tail -n 5 "$T/sup.log" 2>/dev/null | sed 's/^/  | /' >&2
    exit 1
  fi
  if [ -n "$settle" ]; then
    # the kernel tears the run's network namespaces down after it
    "$T/bin/netns_settle" -T 600 >>"$T/res.txt" 2>"$T/settle.err" || {
      echo "bench: $sup ($v, N = $n, round $r): network namespaces not torn down:" >&2
      sed 's/^/  /' "$T/settle.err" >&2
      exit 1
    }
  fi
  grep -v -x done "$T/res.txt" | sed "s|^|$n $r ${label:-$v} $sup |" >>"$RES"
}

# ct_runs N ROUND: the containers' five runs side by side (round 0: the
# warm-up, cold starts only)
ct_runs() {
  settle=1
  cold_deadline=600
  if [ "$2" = 0 ]; then mem=-c; else mem=-M; fi
  run_one capinit ctplain "$1" "$2" $mem; progress .
  run_one capinit ct "$1" "$2" $mem; progress .
  run_one capinit ctnonet "$1" "$2" -c; progress .
  run_one baseline chain "$1" "$2" $mem; progress .
  run_one baseline chainbare "$1" "$2" -c; progress .
  settle=
  cold_deadline=120
}

# ------------------------------------------------------------ the rounds

measure() {
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: $MODE: N = $ns (every metric at N = $fulln; cold start only at the others);" \
  "containers at N = ${ctns:-none};" \
  "$rounds round(s) + warm-up; idle window $idle_ms ms; $trials restarts; $pairs capinit plain/privileged pair(s);" \
  "run scripts: $runscript; $boots QEMU boot(s) after them; load average: $load_start" >&2
t_start=$(date +%s)
warmed=
ct_warmed=
for n in $ns; do
  progress "bench: N = $n: configuration..."
  gen "$n" plain
  gen "$n" priv
  ct=
  for m in $ctns; do [ "$m" = "$n" ] && ct=1; done
  [ -n "$ct" ] && gen_ct "$n"
  if [ "$warm" = each ] || [ -z "$warmed" ]; then
    progress " warm-up"
    for v in plain priv; do
      for sup in $sups; do run_one "$sup" "$v" "$n" 0 -c; progress .; done
    done
    warmed=1
  fi
  if [ -n "$ct" ] && { [ "$warm" = each ] || [ -z "$ct_warmed" ]; }; then
    progress " containers' warm-up"
    ct_runs "$n" 0
    ct_warmed=1
  fi
  full=
  for m in $fulln; do [ "$m" = "$n" ] && full=1; done
  r=1
  while [ "$r" -le "$rounds" ]; do
    progress " round $r"
    for sup in $sups; do
      if [ -n "$full" ]; then
        run_one "$sup" plain "$n" "$r" -i "$idle_ms" -k "$trials"
      else
        run_one "$sup" plain "$n" "$r" -c
      fi
      progress .
    done
    for sup in $sups; do
      # quick: the peers' privileged cold starts (4-8 s each at N = 1000)
      # only up to N = 100, where they are cheap and their state is checked
      case $sup in capinit | baseline) ;; *) [ "$n" -gt "$peers_priv_max" ] && continue ;; esac
      run_one "$sup" priv "$n" "$r" -c
      progress .
    done
    # capinit's privilege overhead: plain and privileged cold starts side
    # by side, so that a change of the machine's load between them is rare
    case " $sups " in *" capinit "*)
      k=1
      while [ "$k" -le "$pairs" ]; do
        label=pairplain
        run_one capinit plain "$n" "$r" -c
        label=pairpriv
        run_one capinit priv "$n" "$r" -c
        label=
        progress .
        k=$((k + 1))
      done ;;
    esac
    if [ -n "$ct" ]; then
      progress " containers"
      ct_runs "$n" "$r"
    fi
    "$T/bin/privsyscalls" "$micro" >"$T/micro.txt" || die "privsyscalls failed"
    sed "s|^|$n $r micro privsyscalls |" "$T/micro.txt" >>"$RES"
    r=$((r + 1))
  done
  progress "
"
  rm -rf "$T/n$n"
done
[ "$boots" -gt 0 ] && boot_runs
echo "bench: done in $(($(date +%s) - t_start)) s; raw results in $RES" >&2

cap_size=$(wc -c <"$T/bin/capinit")
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo unknown; }
{
  echo "meta mode $MODE"
  echo "meta nproc $(nproc)"
  echo "meta kernel $(uname -r)"
  echo "meta cpu $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  echo "meta s6 $(ver s6)"
  echo "meta runit $(ver runit)"
  echo "meta execline $(ver execline)"
  echo "meta setpriv $(ver util-linux)"
  echo "meta ctns $ctns"
  echo "meta cgroup $([ -n "$CGB" ] && echo yes || echo no)"
  echo "meta iproute2 $(ver iproute2)"
  echo "meta hostname $(ver hostname)"
  echo "meta dash $(ver dash)"
  echo "meta capinit $("$T/bin/capinit" -V | sed 's/^capinit //') ($capinit_rev at the start)"
  echo "meta capinit_size $cap_size"
  echo "meta rounds $rounds"
  echo "meta fulln $fulln"
  echo "meta pairs $pairs"
  echo "meta load $load_start (start), $(cut -d' ' -f1-3 /proc/loadavg) (end)"
  echo "meta idle_ms $idle_ms"
  echo "meta trials $trials"
  echo "meta micro $micro"
  echo "meta runscript $runscript"
  echo "meta date $(date -u +%Y-%m-%d)"
  echo "meta duration_s $(($(date +%s) - t_start))"
  if [ "$boots" -gt 0 ]; then
    echo "meta boots $boots"
    echo "meta boot_duration_s $boot_s"
    echo "meta boot_load $boot_load"
    echo "meta boot_image $(cat "$image/format"), $boot_image_files, $boot_image_bytes bytes"
    echo "meta boot_kernel_pkg $(cat "$B/debs/linux-image.name" 2>/dev/null || echo unknown)"
    # from QEMU's own command line (bootwatch read it in /proc)
    q=" $(cat "$T/qemu_cmdline") "
    echo "meta boot_kernel $(basename "$(echo "$q" | sed -n 's/.* -kernel \([^ ]*\) .*/\1/p')")"
    echo "meta boot_accel $(echo "$q" | sed -n 's/.* -accel \([^ ]*\) .*/\1/p')"
    echo "meta boot_mem_mb $(echo "$q" | sed -n 's/.* -m \([^ ]*\) .*/\1/p')"
    echo "meta boot_append $(echo "$q" | sed -n 's/.* -append \(.*\) $/\1/p')"
    echo "meta qemu $(qemu-system-x86_64 --version | sed -n '1s/^QEMU emulator version //p')"
  fi
} >>"$RES"
}

# boot_runs: BENCH_BOOTS boots of the appliance, one at a time; appends
# "boot K key value" lines to $RES (tests/bench/bootwatch.c's keys)
boot_runs() {
  boot_load=$(cut -d' ' -f1-3 /proc/loadavg)
  boot_t0=$(date +%s)
  boot_image_files=$(cd "$image" && ls initramfs.cpio.gz rootfs.* stage1.cpio.gz 2>/dev/null | tr '\n' ' ' | sed 's/ $//; s/ / + /g')
  boot_image_bytes=$(cd "$image" && cat initramfs.cpio.gz rootfs.* stage1.cpio.gz 2>/dev/null | wc -c)
  progress "bench: QEMU boots of the appliance ($(cat "$image/format"), TCG; load average $boot_load):"
  k=1
  while [ "$k" -le "$boots" ]; do
    HOST_PORT=0 "$T/bin/bootwatch" -o "$T/console.log" -T 300 -- sh "$ROOT/rootfs/qemu.sh" boot "$B" "$image" \
      >"$T/boot.txt" 2>"$T/boot.err"
    st=$?
    if [ $st != 0 ]; then
      echo >&2
      echo "bench: QEMU boot $k failed (bootwatch exit $st):" >&2
      sed 's/^/  /' "$T/boot.txt" "$T/boot.err" >&2
      echo "  last lines of the console:" >&2
      tr -d '\r' <"$T/console.log" | tail -n 15 | sed 's/^/  | /' >&2
      exit 1
    fi
    sed -n 's/^qemu_cmdline //p' "$T/boot.txt" >"$T/qemu_cmdline"
    grep -v '^qemu_cmdline ' "$T/boot.txt" | sed "s|^|boot $k |" >>"$RES"
    progress " $k: $(awk '$1 == "ready_ms" { r = $2 } $1 == "wall_ready_ns" { w = $2 } $1 == "poweroff_ns" { o = $2 }
      END { printf "ready %s ms (guest), %.2f s (wall), power-off %.2f s", r, w / 1e9, o / 1e9 }' "$T/boot.txt");"
    k=$((k + 1))
  done
  boot_s=$(($(date +%s) - boot_t0))
  progress "
"
}

[ "$MODE" = report ] || measure

# ---------------------------------------------------------------- report

awk -v what=table -f "$HERE/report.awk" "$RES" || exit 1
if [ "$MODE" != quick ] && [ -z "${BENCH_OUT:-}" ] && ! grep -q '^[0-9]' "$RES"; then
  # only boots (BENCH_NS=none): never replace docs/ with that
  echo "bench: no supervisor run in $RES: $out_dir/benchmarks.md left alone (BENCH_OUT=DIR writes this report there)" >&2
elif [ "$MODE" != quick ]; then
  awk -v what=markdown -f "$HERE/report.awk" "$RES" >"$T/benchmarks.md" || exit 1
  if [ -f "$HERE/notes.md" ]; then cat "$HERE/notes.md" >>"$T/benchmarks.md"; fi
  mkdir -p "$out_dir"
  cp "$T/benchmarks.md" "$out_dir/benchmarks.md"
  if grep -q '^[0-9]' "$RES"; then  # supervisor runs (not only boots): the plots
    awk -v what=plot_cold -f "$HERE/report.awk" "$RES" >"$T/cold.dat"
    awk -v what=plot_mem -f "$HERE/report.awk" "$RES" >"$T/mem.dat"
    sh "$HERE/plot.sh" "$T/cold.dat" "$T/mem.dat" "$out_dir" || die "gnuplot failed"
    echo "bench: wrote $out_dir/benchmarks.md, $out_dir/bench-coldstart.svg, $out_dir/bench-memory.svg" >&2
  else
    echo "bench: wrote $out_dir/benchmarks.md (no supervisor run: no plot)" >&2
  fi
fi
