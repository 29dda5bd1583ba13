#!/bin/sh
# Differential tests on the real kernel.  For each spec of the table:
#   1. `capctl explain --json -k ... -- TARGET` predicts the credentials
#      after exec (or that the launch is refused, and at which stage);
#   2. `capexec -k ... -- TARGET` runs the probe, which reports what the
#      kernel says (cross-checked with /proc/self/status);
#   3. where setpriv can express the same spec, it runs the same probe.
# Prediction and kernel must agree on all 15 fields (or on the refusal and
# its stage); setpriv must agree with capexec, except where capinit is
# deliberately different (named in the table: F1, F2).
B=${1:-build}
. tests/lib.sh
[ "$(id -u)" = 0 ] || { echo "# needs root"; t_ok 1 "run as root"; t_done; exit 1; }
CAPCTL=$(pwd)/$B/bin/capctl
CAPEXEC=$(pwd)/$B/bin/capexec
PROBE=$(pwd)/$B/tests/probe
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"

# --- targets: the probe, copied with set-id bits and file capabilities
mk() { # NAME OWNER MODE [SETCAP]
  cp "$PROBE" "$T/$1"
  chown "$2" "$T/$1"
  chmod "$3" "$T/$1"
  if [ -n "${4:-}" ]; then setcap "$4" "$T/$1" || echo "# setcap $4 failed"; fi
}
mk plain root:root 0755
mk suid-root root:root 4755
mk suid-daemon daemon:root 4755
mk sgid-audio root:audio 2755
mk sgid-video root:video 2755
mk fcap-ep root:root 0755 cap_net_raw+ep
mk fcap-p root:root 0755 cap_net_raw+p
mk fcap-ei root:root 0755 cap_net_raw+ei
mk fcap-empty root:root 0755 =
mk fcap-ep2 root:root 0755 cap_chown,cap_net_raw+ep
mk fcap-p2 root:root 0755 cap_chown,cap_net_raw+p
mk suid-fcap root:root 0755 cap_net_raw+ep
chmod 4755 "$T/suid-fcap"   # chmod after setcap: chown would clear the xattr

# every capability this kernel has, but cap_net_raw
last=$(cat /proc/sys/kernel/cap_last_cap)
allbut=
c=0
while [ "$c" -le "$last" ]; do
  n=$(capsh --decode=$(printf '%x' $((1 << c))) 2>/dev/null | sed 's/.*=//')
  [ "$n" != cap_net_raw ] && allbut="$allbut${allbut:+,}$n"
  c=$((c + 1))
done

NR=cap_net_raw
NB=cap_net_bind_service
SP_NOROOT=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked

# NAME | TARGET | capexec/explain keys (blank-separated) | setpriv args, "-" = not expressible, "F2:..." = expected to differ
cat > "$T/specs" <<EOF
root-plain|plain||--
root-caps1|plain|capabilities=net_raw|--inh-caps=+net_raw --ambient-caps=+net_raw
root-caps3|plain|capabilities=net_raw,chown,kill|--inh-caps=+net_raw,+chown,+kill --ambient-caps=+net_raw,+chown,+kill
root-bnd-partial|plain|bounding=net_raw,chown,net_bind_service|--bounding-set=-all,+net_raw,+chown,+net_bind_service
root-bnd-none|plain|bounding=none|--bounding-set=-all
root-bnd-onedropped|plain|bounding=$allbut|--bounding-set=-net_raw
root-nnp|plain|no-new-privileges=yes|--no-new-privs
root-noroot|plain|mode=noroot|--securebits=$SP_NOROOT --bounding-set=-all --inh-caps=-all
root-noroot-caps|plain|mode=noroot capabilities=net_raw|--securebits=$SP_NOROOT --bounding-set=-all,+net_raw --inh-caps=+net_raw --ambient-caps=+net_raw
root-sb-0x1|plain|securebits=noroot|-
root-sb-0x4|plain|securebits=no-setuid-fixup|--securebits=+no_setuid_fixup
root-sb-0x5|plain|securebits=noroot,no-setuid-fixup|-
root-sb-0x20|plain|securebits=keep-caps-locked|--securebits=+keep_caps_locked
root-sb-0x3f|plain|securebits=noroot,noroot-locked,no-setuid-fixup,no-setuid-fixup-locked,keep-caps,keep-caps-locked|-
root-sb-0x40|plain|securebits=no-cap-ambient-raise|-
root-sb-0xc0-caps|plain|securebits=no-cap-ambient-raise,no-cap-ambient-raise-locked capabilities=net_raw|-
root-sb-0xef|plain|securebits=noroot,noroot-locked,no-setuid-fixup,no-setuid-fixup-locked,keep-caps-locked,no-cap-ambient-raise,no-cap-ambient-raise-locked|-
nobody-plain|plain|user=nobody|--reuid=65534 --regid=65534 --init-groups
nobody-nogroups|plain|user=nobody groups=|--reuid=65534 --regid=65534 --clear-groups
nobody-groups|plain|user=nobody groups=audio,video|--reuid=65534 --regid=65534 --groups=29,44
nobody-group|plain|user=nobody group=audio groups=|--reuid=65534 --regid=29 --clear-groups
nobody-caps1|plain|user=nobody capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw
nobody-caps2|plain|user=nobody capabilities=net_raw,net_bind_service|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw,+net_bind_service --ambient-caps=+net_raw,+net_bind_service
nobody-caps-nnp|plain|user=nobody capabilities=net_raw no-new-privileges=yes|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw --no-new-privs
nobody-noroot|plain|user=nobody mode=noroot capabilities=net_bind_service no-new-privileges=yes|--reuid=65534 --regid=65534 --init-groups --securebits=$SP_NOROOT --bounding-set=-all,+net_bind_service --inh-caps=+net_bind_service --ambient-caps=+net_bind_service --no-new-privs
nobody-bnd-none|plain|user=nobody bounding=none|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all
nobody-bnd-partial-caps|plain|user=nobody bounding=net_raw,chown capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all,+net_raw,+chown --inh-caps=+net_raw --ambient-caps=+net_raw
nobody-sb-0x40-caps|plain|user=nobody securebits=no-cap-ambient-raise capabilities=net_raw|-
nobody-sb-0xc0|plain|user=nobody securebits=no-cap-ambient-raise,no-cap-ambient-raise-locked|-
uid1234-plain|plain|user=1234 group=1234 groups=|--reuid=1234 --regid=1234 --clear-groups
uid1234-caps|plain|user=1234 group=1234 groups= capabilities=net_raw mode=noroot|--reuid=1234 --regid=1234 --clear-groups --securebits=$SP_NOROOT --bounding-set=-all,+net_raw --inh-caps=+net_raw --ambient-caps=+net_raw
daemon-plain|plain|user=daemon|--reuid=1 --regid=1 --init-groups
suid-root-by-root|suid-root||--
suid-root-by-nobody|suid-root|user=nobody|--reuid=65534 --regid=65534 --init-groups
suid-root-by-nobody-caps|suid-root|user=nobody capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw
suid-root-noroot|suid-root|user=nobody mode=noroot|--reuid=65534 --regid=65534 --init-groups --securebits=$SP_NOROOT --bounding-set=-all --inh-caps=-all
suid-root-noroot-uid0|suid-root|mode=noroot bounding=none|--securebits=$SP_NOROOT --bounding-set=-all --inh-caps=-all
suid-root-nnp|suid-root|user=nobody no-new-privileges=yes|--reuid=65534 --regid=65534 --init-groups --no-new-privs
suid-root-bnd|suid-root|user=nobody bounding=net_raw,chown|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all,+net_raw,+chown
suid-daemon-by-nobody|suid-daemon|user=nobody capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw
suid-daemon-by-root|suid-daemon|capabilities=net_raw|--inh-caps=+net_raw --ambient-caps=+net_raw
suid-daemon-sb-0x4|suid-daemon|securebits=no-setuid-fixup|--securebits=+no_setuid_fixup
sgid-in-groups|sgid-audio|user=nobody groups=audio capabilities=net_raw|--reuid=65534 --regid=65534 --groups=29 --inh-caps=+net_raw --ambient-caps=+net_raw
sgid-not-in-groups|sgid-video|user=nobody groups=audio capabilities=net_raw|--reuid=65534 --regid=65534 --groups=29 --inh-caps=+net_raw --ambient-caps=+net_raw
sgid-nnp|sgid-audio|user=nobody groups=audio capabilities=net_raw no-new-privileges=yes|--reuid=65534 --regid=65534 --groups=29 --inh-caps=+net_raw --ambient-caps=+net_raw --no-new-privs
sgid-by-root|sgid-video||--
fcap-ep-nobody|fcap-ep|user=nobody|--reuid=65534 --regid=65534 --init-groups
fcap-ep-nobody-nnp|fcap-ep|user=nobody no-new-privileges=yes|F2:--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --no-new-privs
fcap-ep-noroot|fcap-ep|user=nobody mode=noroot capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --securebits=$SP_NOROOT --bounding-set=-all,+net_raw --inh-caps=+net_raw --ambient-caps=+net_raw
fcap-ep-noroot-nocap|fcap-ep|user=nobody mode=noroot|-
fcap-ep-bnd-out|fcap-ep|user=nobody bounding=chown|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all,+chown
fcap-ep-root|fcap-ep||--
fcap-ep-root-noroot|fcap-ep|mode=noroot bounding=net_raw|-
fcap-ep-ambient|fcap-ep|user=nobody capabilities=net_bind_service|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_bind_service --ambient-caps=+net_bind_service
fcap-p-nobody|fcap-p|user=nobody|--reuid=65534 --regid=65534 --init-groups
fcap-p-bnd-out|fcap-p|user=nobody bounding=chown|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all,+chown
fcap-p2-bnd-partial|fcap-p2|user=nobody bounding=net_raw|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all,+net_raw
fcap-ep2-bnd-partial|fcap-ep2|user=nobody bounding=net_raw|--reuid=65534 --regid=65534 --init-groups --bounding-set=-all,+net_raw
fcap-ei-inh|fcap-ei|user=nobody capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw
fcap-ei-noinh|fcap-ei|user=nobody|--reuid=65534 --regid=65534 --init-groups
fcap-ei-noroot|fcap-ei|user=nobody mode=noroot capabilities=net_raw no-new-privileges=yes|--reuid=65534 --regid=65534 --init-groups --securebits=$SP_NOROOT --bounding-set=-all,+net_raw --inh-caps=+net_raw --ambient-caps=+net_raw --no-new-privs
fcap-empty-nobody|fcap-empty|user=nobody capabilities=net_raw|--reuid=65534 --regid=65534 --init-groups --inh-caps=+net_raw --ambient-caps=+net_raw
fcap-empty-root|fcap-empty|capabilities=net_raw|--inh-caps=+net_raw --ambient-caps=+net_raw
suid-fcap-nobody|suid-fcap|user=nobody|--reuid=65534 --regid=65534 --init-groups
suid-fcap-root|suid-fcap||--
suid-fcap-noroot|suid-fcap|user=nobody mode=noroot capabilities=net_bind_service|--reuid=65534 --regid=65534 --init-groups --securebits=$SP_NOROOT --bounding-set=-all,+net_bind_service --inh-caps=+net_bind_service --ambient-caps=+net_bind_service
EOF

fields() { # JSON on stdin -> "key value" lines of the 15 credential fields
  sed -n 's/^ *"\(uid\|euid\|suid\|gid\|egid\|sgid\|groups\|securebits\|cap_inh\|cap_prm\|cap_eff\|cap_bnd\|cap_amb\|no_new_privs\|at_secure\)": \(.*\)$/\1 \2/p' |
    sed 's/,$//'
}

nspec=0
nsetpriv=0
ndiffer=0
while IFS='|' read -r name target keys sp; do
  [ -n "$name" ] || continue
  nspec=$((nspec + 1))
  set --
  for k in $keys; do set -- "$@" -k "$k"; done
  [ $# -gt 0 ] || set -- -k "description=$name"
  "$CAPCTL" explain --json "$@" -- "$T/$target" >"$T/explain.json" 2>"$T/explain.err"
  launch=$(sed -n 's/^ *"launch": "\(.*\)",$/\1/p' "$T/explain.json")
  "$CAPEXEC" "$@" -- "$T/$target" >"$T/probe.json" 2>"$T/probe.err"
  rc=$?
  if [ "$launch" = refused ]; then
    stage=$(sed -n 's/^ *"stage": "\(.*\)",$/\1/p' "$T/explain.json")
    got=$(sed -n 's/.*(stage \([a-z]*\)).*/\1/p' "$T/probe.err")
    t_eq "refused:$stage:$([ $rc != 0 ] && echo failed)" "refused:$got:failed" \
      "$name: explain predicts a refused launch at stage $stage; capexec fails there ($(tr -d '\n' <"$T/probe.err"))"
  else
    fields <"$T/explain.json" >"$T/e"
    fields <"$T/probe.json" >"$T/p"
    if [ "$rc" = 0 ] && [ "$(wc -l <"$T/e")" = 15 ] && cmp -s "$T/e" "$T/p"; then
      t_ok 0 "$name: explain = kernel"
    else
      t_ok 1 "$name: explain = kernel (capexec exit $rc)"
      diff "$T/e" "$T/p" | sed 's/^/#   /'
      sed 's/^/#   /' "$T/probe.err" "$T/explain.err"
    fi
  fi
  case $sp in
    -|"") continue ;;
  esac
  nsetpriv=$((nsetpriv + 1))
  differ=
  case $sp in F2:*) differ=F2; sp=${sp#F2:} ;; esac
  [ "$sp" = -- ] && sp=
  # capinit gives root the groups a root login has (here: 0), setpriv
  # keeps the caller's: say it
  case $sp in *--reuid*) ;; *) sp="--groups=0 $sp" ;; esac
  # shellcheck disable=SC2086
  setpriv $sp -- "$T/$target" >"$T/setpriv.json" 2>"$T/setpriv.err"
  src=$?
  if [ "$launch" = refused ]; then
    t_ok $([ $src != 0 ] && echo 0 || echo 1) "$name: setpriv fails too (exit $src)"
    continue
  fi
  fields <"$T/setpriv.json" >"$T/s"
  if [ -z "$differ" ]; then
    if [ "$src" = 0 ] && cmp -s "$T/s" "$T/p"; then
      t_ok 0 "$name: setpriv = capexec"
    else
      t_ok 1 "$name: setpriv = capexec (setpriv exit $src)"
      diff "$T/s" "$T/p" | sed 's/^/#   /'
      sed 's/^/#   /' "$T/setpriv.err"
    fi
  else
    ndiffer=$((ndiffer + 1))
    sp_prm=$(sed -n 's/^cap_prm //p' "$T/s")
    ce_prm=$(sed -n 's/^cap_prm //p' "$T/p")
    t_eq "$sp_prm/$ce_prm" '"0000000000002000"/"0000000000000000"' \
      "$name: $differ: under setpriv the file capability survives nnp (launcher kept its permitted set); under capexec it does not"
  fi
done <"$T/specs"

echo "# summary: differential specs: $nspec (explain vs kernel), of which $nsetpriv also run under setpriv, $ndiffer deliberately different"
[ "$nspec" -ge 60 ]
t_ok $? "at least 60 specs ($nspec)"
t_done
