#!/bin/sh
# capctl verify judges a running service only against the file it was
# started from: capinit tells the digest of the spec each service runs
# (verify-facts), capctl parses the file on disk and compares.
#
#   grouped  legacy root, groups = 0, 4.  Its file is edited while it runs
#            (groups = 0): verify says it runs another version of the file
#            and to restart it (exit 1), and the same after a reload (the
#            new spec waits for the next start); restarted, it holds the
#            new groups (/proc/PID/status: 0) and verify passes.  Control:
#            steady, never edited, passes at every step, in the same runs.
#   rights   verify-facts gives a digest of each service's file: only uid
#            0 is told.  A member of the control group (uid 65534, audio)
#            is refused it; control: it may read the status, and root may
#            verify.  Root outside capinit's PID namespace is refused by
#            capctl itself: capinit's pids are not its /proc's.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
AUDIO=$(getent group audio | cut -d: -f3)
printf 'control-group = audio\n' >> "$T/c/capinit.conf"

svc grouped <<EOF
command = /bin/sleep 42001
groups = 0, 4
EOF
svc steady <<EOF
command = /bin/sleep 42002
EOF

# verify both ($out, $rc); then the exit status and each service's result
verify_both() {
  out=$(sv_ctl verify grouped steady 2>&1)
  rc=$?
}
results() { echo "$rc:$(echo "$out" | sed -n 's/^name=\([^\t]*\)\tresult=\([a-z]*\).*/\1=\2/p' | tr '\n' ' ')"; }
groups_of() { sv_in sed -n 's/^Groups:[[:space:]]*//p' "/proc/$(sv_field grouped pid)/status" | sed 's/ *$//'; }

sv_start
t_ok $? "capinit starts"
sv_wait grouped up 10 && sv_wait steady up 10
t_ok $? "grouped and steady are up"
verify_both
t_eq "$(results)" "0:grouped=ok steady=ok " "control: both as their files say: ok"
t_eq "$(groups_of)" "0 4" "... grouped holds groups 0 4 (/proc/PID/status)"

# the file edited under the running service
sed -i 's/^groups = 0, 4$/groups = 0/' "$T/c/services/grouped.svc"
verify_both
t_eq "$(results)" "1:grouped=error steady=ok " "grouped's file edited while it runs: not judged against it (exit 1); steady ok"
t_eq "$(echo "$out" | sed -n 's/^name=grouped\t//p')" \
  "result=error	reason=it runs another version of $T/c/services/grouped.svc (the file changed, or was reloaded, since it started): restart it (capctl restart grouped) to verify it against this one" \
  "... the record says why, and what to do"
t_eq "$(echo "$out" | tail -n 1)" "capctl: error: 1 service differs from the prediction" "... and counts it"

# a reload: capinit keeps the new spec for the next start
sv_ctl reload > /dev/null
t_eq "$?" 0 "reload"
verify_both
t_eq "$(results)" "1:grouped=error steady=ok " "after the reload, grouped still runs the old spec: the same error; steady ok"
t_eq "$(groups_of)" "0 4" "... and it still holds groups 0 4"

sv_ctl restart grouped > /dev/null
n=0
while [ "$(groups_of)" != 0 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
sv_wait grouped up 10
t_eq "$(groups_of)" "0" "restarted: grouped holds groups 0, as its file says now (/proc/PID/status)"
verify_both
t_eq "$(results)" "0:grouped=ok steady=ok " "... and verify judges it against that file: ok"

# the file put back as it was: what runs is the edited version
sed -i 's/^groups = 0$/groups = 0, 4/' "$T/c/services/grouped.svc"
verify_both
t_eq "$(results)" "1:grouped=error steady=ok " "its file put back as it was first: not what runs now (exit 1)"

# ------------------------------------------------ who is told the digests
out=$(setpriv --reuid=65534 --regid="$AUDIO" --clear-groups "$CAPCTL" status steady -r "$T/run" 2>&1)
t_eq "$?" 0 "control: a member of the control group (uid 65534, audio) may read the status"
out=$(sv_peer setpriv --reuid=65534 --regid="$AUDIO" --clear-groups "$CAPCTL" verify steady -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only uid 0 may verify (it is told digests of the service files)" \
  "... not the services' digests: verify refused"
out=$(sv_ctl verify steady 2>&1)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=steady result=ok processes=1" "control: root may verify"
# outside capinit's PID namespace capinit's pids name other processes here
out=$("$CAPCTL" verify steady -r "$T/run" 2>&1)
t_eq "$?:$out" "111:capctl: fatal: capinit's /proc does not show capctl and capinit as capinit sees them: run capctl verify in capinit's PID namespace (nsenter -t PID -p)" \
  "root outside capinit's PID namespace: verify refuses to judge (exit 111); control: the same inside, above"

sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
t_done
