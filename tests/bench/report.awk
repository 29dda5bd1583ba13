# tests/bench/report.awk -- the benchmark's numbers, from run.sh's raw
# results (BUILDDIR/bench-results.txt):
#
#   N ROUND VARIANT SUPERVISOR KEY VALUE...   one measurement (round 0: the
#                                             warm-up, ignored)
#   N ROUND micro privsyscalls KEY VALUE      the microbenchmark
#   boot K KEY VALUE                          the K-th QEMU boot of the
#                                             appliance (tests/bench/bootwatch.c)
#   meta KEY VALUE...                         machine, versions, parameters
#
# awk -v what=table|markdown|plot_cold|plot_mem -f report.awk RESULTS
#
# Variants: plain, priv (the privileged service), pairplain, pairpriv
# (capinit's side-by-side pairs), and the application containers' (issue
# 15, see run.sh): ctplain, ct, ctnonet (capinit), chain, chainbare (the
# baseline running the reference chain).
#
# Every statistic is over the rounds: the median, with min-max; a ratio is
# taken to the baseline of the same round and variant, then its median
# (the containers': to the run of the same round named in the ratio).
# Restart latencies of all rounds are pooled for the median and p90.
# Exits 1 (a sanity check) if a supervisor of a round misses a result.

function isort(a, n,   i, j, t) {
  for (i = 2; i <= n; i++) {
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
}
# stat(LIST, "med"|"min"|"max"|"p90"|"n") of a blank-separated list
function stat(list, what,   a, n) {
  n = split(list, a, " ")
  if (what == "n") return n
  if (!n) return ""
  isort(a, n)
  if (what == "min") return a[1]
  if (what == "max") return a[n]
  if (what == "p90") return a[int(0.9 * n + 0.999999)]
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# the same, divided by sc; "" for an empty list
function S(list, what, sc) { return list == "" ? "" : stat(list, what) / sc }
function add(key, v) { L[key] = (key in L) ? L[key] " " v : v }
function f1(x) { return x == "" ? "-" : sprintf(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x) }
function fr(x) { return x == "" ? "-" : sprintf("%.2f", x) }
# "med (min-max)" of a list, each scaled by s
function mmm(list, s) {
  if (list == "") return "-"
  if (stat(list, "n") == 1) return f1(stat(list, "med") / s)
  return f1(stat(list, "med") / s) " (" f1(stat(list, "min") / s) "–" f1(stat(list, "max") / s) ")"
}
# the same for integers (counts)
function mmi(list) {
  if (list == "") return "-"
  if (stat(list, "n") == 1 || stat(list, "min") == stat(list, "max")) return stat(list, "med")
  return stat(list, "med") " (" stat(list, "min") "–" stat(list, "max") ")"
}
function rmm(list) {
  if (list == "") return "-"
  if (stat(list, "n") == 1) return fr(stat(list, "med"))
  return fr(stat(list, "med")) " (" fr(stat(list, "min")) "–" fr(stat(list, "max")) ")"
}

$1 == "meta" { k = $2; $1 = $2 = ""; sub(/^  */, ""); M[k] = $0; next }
$1 == "boot" {
  if (!($2 in seenB)) { seenB[$2] = 1; bk[++nB] = $2 }
  BT[$2, $3] = $4
  next
}
{
  n = $1; r = $2; v = $3; s = $4; k = $5
  if (r == 0) next
  if (!(n in seenN)) { seenN[n] = 1; ns[++nN] = n }
  if (r > R[n]) R[n] = r
  if (v == "micro") { MI[n, r, k] = $6; next }
  if (!((v, s) in seenS)) { seenS[v, s] = 1 }
  if (!(s in seenSup)) { seenSup[s] = 1 }
  if (k == "restart_ns") {
    line = ""
    for (i = 6; i <= NF; i++) line = line " " $i
    RST[n, s] = RST[n, s] line
    RM[n, s, r] = stat(line, "med")
    next
  }
  if (k == "tree_procs") { if (v == "plain") { TP[n, s] = $6; TD[n, s] = $7 } else TPV[n, v] = $7; next }
  if (k == "check") {
    if (v == "priv") CHK[s] = $0
    if ($6 == "contained") { line = $0; sub(/^.* check contained /, "", line); CHKCT[v] = line }
    next
  }
  if (v ~ /^pair/) { if (k == "cold_ns") PAIR[n, r, v] = PAIR[n, r, v] " " $6; next }
  V[n, r, v, s, k] = $6
}

function prepare(   i, j, n, r, s, v, b, x) {
  for (i = 1; i <= nB; i++) {
    add("boot" SUBSEP "ready", BT[bk[i], "ready_ms"])
    add("boot" SUBSEP "wall", BT[bk[i], "wall_ready_ns"])
    add("boot" SUBSEP "off", BT[bk[i], "poweroff_ns"])
    add("boot" SUBSEP "exit", BT[bk[i], "wall_exit_ns"])
    add("boot" SUBSEP "services", BT[bk[i], "services"])
  }
  order = "baseline capinit s6 runit"
  nS = 0
  split(order, cand, " ")
  for (i = 1; i <= 4; i++) if (cand[i] in seenSup) sups[++nS] = cand[i]
  isort(ns, nN)
  for (i = 1; i <= nN; i++) {
    n = ns[i]
    for (r = 1; r <= R[n]; r++) {
      for (j = 1; j <= nS; j++) {
        s = sups[j]
        for (vi = 1; vi <= 2; vi++) {
          v = vi == 1 ? "plain" : "priv"
          if (!((n, r, v, s, "services") in V)) continue  # not run (quick: privileged peers)
          if (V[n, r, v, s, "services"] != n) {
            printf "report: %s (%s, N = %s, round %s): %s of %s services\n", s, v, n, r,
              V[n, r, v, s, "services"] + 0, n > "/dev/stderr"
            bad = 1
            exit 1
          }
          x = V[n, r, v, s, "cold_ns"]
          add(n SUBSEP v SUBSEP s SUBSEP "cold", x)
          b = V[n, r, v, "baseline", "cold_ns"]
          if (b > 0) add(n SUBSEP v SUBSEP s SUBSEP "coldratio", x / b)
        }
        if ((n, r, "plain", s, "mem_pss_kb") in V) {
          add(n SUBSEP s SUBSEP "mem", V[n, r, "plain", s, "mem_pss_kb"] + V[n, r, "plain", s, "mem_pte_kb"])
          add(n SUBSEP s SUBSEP "wake", V[n, r, "plain", s, "idle_wakeups"])
          add(n SUBSEP s SUBSEP "cpu", V[n, r, "plain", s, "idle_cpu_ns"])
          add(n SUBSEP s SUBSEP "window", V[n, r, "plain", s, "idle_window_ns"])
        }
        if ((n, s, r) in RM && (n, "baseline", r) in RM && RM[n, "baseline", r] > 0)
          add(n SUBSEP s SUBSEP "rstratio", RM[n, s, r] / RM[n, "baseline", r])
      }
      # capinit's privilege overhead per service: each side-by-side pair
      np = split(PAIR[n, r, "pairplain"], pa, " ")
      if (split(PAIR[n, r, "pairpriv"], pb, " ") != np) { print "report: unpaired capinit runs" > "/dev/stderr"; bad = 1; exit 1 }
      for (j = 1; j <= np; j++) add(n SUBSEP "privoverhead", (pb[j] - pa[j]) / n)
      if ((n, r, "micro_priv_ns") in MI) {
        add(n SUBSEP "seq", MI[n, r, "micro_priv_ns"] - MI[n, r, "micro_bare_ns"])
        add(n SUBSEP "seqplain", MI[n, r, "micro_plain_ns"] - MI[n, r, "micro_bare_ns"])
        add(n SUBSEP "bare", MI[n, r, "micro_bare_ns"])
      }
    }
  }
}

# ------------------------------------------------- application containers
function ctv(n, r, v, k,   s) {
  s = (v == "chain" || v == "chainbare") ? "baseline" : "capinit"
  return ((n, r, v, s, k) in V) ? V[n, r, v, s, k] : ""
}
# the capinit process's own memory: Rss + page tables, KiB
function supmem(n, r, v) { return ctv(n, r, v, "sup_rss_kb") == "" ? "" : ctv(n, r, v, "sup_rss_kb") + ctv(n, r, v, "sup_pte_kb") }
function ct_prepare(   i, n, r, j, v, c, p, x, y) {
  nC = 0
  split("ctplain ct ctnonet chain chainbare", CTV, " ")
  for (i = 1; i <= nN; i++) {
    n = ns[i]
    for (r = 1; r <= R[n]; r++) {
      if (ctv(n, r, "ct", "services") == "") continue
      if (!(n in seenC)) { seenC[n] = 1; cns[++nC] = n }
      for (j = 1; j <= 5; j++) {
        v = CTV[j]
        if (ctv(n, r, v, "services") != n) {
          printf "report: %s (N = %s, round %s): %s of %s services\n", v, n, r, ctv(n, r, v, "services") + 0, n > "/dev/stderr"
          bad = 1
          exit 1
        }
        add(n SUBSEP v SUBSEP "cold", ctv(n, r, v, "cold_ns"))
        if (ctv(n, r, v, "cold_cpu_us") != "") {
          add(n SUBSEP v SUBSEP "cpu", ctv(n, r, v, "cold_cpu_us"))
          add(n SUBSEP v SUBSEP "stall", ctv(n, r, v, "cold_stall_us"))
        }
        add(n SUBSEP v SUBSEP "settle", ctv(n, r, v, "netns_settle_ns"))
        add(n SUBSEP v SUBSEP "kill", ctv(n, r, v, "kill_ns"))
        if (j > 1) add(n SUBSEP v SUBSEP "teardown", ctv(n, r, v, "netns_settle_ns") - ctv(n, r, "ctplain", "netns_settle_ns"))
        if (ctv(n, r, v, "helpers") != "") {
          if (ctv(n, r, v, "cpu_sup_ns") != "") {
            add(n SUBSEP v SUBSEP "cpusup", ctv(n, r, v, "cpu_sup_ns") / n)
            add(n SUBSEP v SUBSEP "cpuhelpers", ctv(n, r, v, "cpu_helpers_ns") / n)
            add(n SUBSEP v SUBSEP "cpusvc", ctv(n, r, v, "cpu_services_ns") / n)
          }
          add(n SUBSEP v SUBSEP "supmem", supmem(n, r, v))
          add(n SUBSEP v SUBSEP "suppss", ctv(n, r, v, "sup_pss_kb") + ctv(n, r, v, "sup_pte_kb"))
          add(n SUBSEP v SUBSEP "helpers", ctv(n, r, v, "helpers"))
          if (ctv(n, r, v, "helpers") > 0) {
            add(n SUBSEP v SUBSEP "helperuss", ctv(n, r, v, "helper_uss_kb") + ctv(n, r, v, "helper_pte_kb"))
            add(n SUBSEP v SUBSEP "helperpss", ctv(n, r, v, "helper_pss_kb"))
          }
        }
      }
      c = ctv(n, r, "ct", "cold_ns")
      add(n SUBSEP "r_chain", c / ctv(n, r, "chain", "cold_ns"))
      add(n SUBSEP "r_chainbare", c / ctv(n, r, "chainbare", "cold_ns"))
      add(n SUBSEP "r_plain", c / ctv(n, r, "ctplain", "cold_ns"))
      add(n SUBSEP "r_nonet", c / ctv(n, r, "ctnonet", "cold_ns"))
      add(n SUBSEP "r_chain_plain", ctv(n, r, "chain", "cold_ns") / ctv(n, r, "ctplain", "cold_ns"))
      if (ctv(n, r, "ct", "cold_cpu_us") != "") {
        add(n SUBSEP "cpu_ctcost", (ctv(n, r, "ct", "cold_cpu_us") - ctv(n, r, "ctplain", "cold_cpu_us")) * 1000 / n)
        add(n SUBSEP "cpu_netns", (ctv(n, r, "ct", "cold_cpu_us") - ctv(n, r, "ctnonet", "cold_cpu_us")) * 1000 / n)
      }
      if (ctv(n, r, "chain", "cold_cpu_us") > 0) {
        add(n SUBSEP "rcpu_chain", ctv(n, r, "ct", "cold_cpu_us") / ctv(n, r, "chain", "cold_cpu_us"))
        add(n SUBSEP "rcpu_chainbare", ctv(n, r, "ct", "cold_cpu_us") / ctv(n, r, "chainbare", "cold_cpu_us"))
      }
      p = V[n, r, "priv", "capinit", "cold_ns"]
      if (p > 0) add(n SUBSEP "r_priv", c / p)
      add(n SUBSEP "netns", (c - ctv(n, r, "ctnonet", "cold_ns")) / n)
      add(n SUBSEP "ctcost", (c - ctv(n, r, "ctplain", "cold_ns")) / n)
      x = supmem(n, r, "ct"); y = supmem(n, r, "ctplain")
      if (x != "" && y != "") {
        add(n SUBSEP "memdiff", (x - y) * 1024 / n)
        add(n SUBSEP "pssdiff", (ctv(n, r, "ct", "sup_pss_kb") + ctv(n, r, "ct", "sup_pte_kb") - \
          ctv(n, r, "ctplain", "sup_pss_kb") - ctv(n, r, "ctplain", "sup_pte_kb")) * 1024 / n)
      }
    }
  }
  isort(cns, nC)
}

function ct_targets(   n, x, y) {
  n = cns[nC]
  CTN = n
  nCT = 0
  x = stat(cell(n SUBSEP "r_chain"), "med")
  y = stat(cell(n SUBSEP "r_chainbare"), "med")
  nCT++
  TCN[nCT] = "contained cold start, N = " n
  TCV[nCT] = fr(x) "× the unshare + setpriv chain (" f1(stat(cell(n SUBSEP "ct" SUBSEP "cold"), "med") / 1e6) " ms vs " \
    f1(stat(cell(n SUBSEP "chain" SUBSEP "cold"), "med") / 1e6) " ms; " fr(y) "× the bare chain, without host name and lo)"
  TCL[nCT] = "≤ 0.5× the chain"
  TCS[nCT] = x == "" ? "missing" : x <= 0.5 ? "met" : "missed"
  x = stat(cell(n SUBSEP "memdiff"), "med")
  nCT++
  TCN[nCT] = "capinit's memory per contained service, N = " n
  TCV[nCT] = (x >= 0 ? "+" : "") f1(x) " B per service against a plain one (capinit's Rss + page tables: " \
    f1(stat(cell(n SUBSEP "ct" SUBSEP "supmem"), "med")) " KiB vs " f1(stat(cell(n SUBSEP "ctplain" SUBSEP "supmem"), "med")) " KiB)"
  TCL[nCT] = "within 2 KiB (2048 B)"
  TCS[nCT] = x == "" ? "missing" : (x <= 2048 && x >= -2048) ? "met" : "missed"
}

function ct_what(v) {
  if (v == "ctplain") return "capinit, the plain service (no container)"
  if (v == "ct") return "capinit, contained: mount + PID + IPC + UTS + network none"
  if (v == "ctnonet") return "capinit, contained but network = host"
  if (v == "chain") return "baseline + `unshare … sh chain.sh setpriv …` (the same view)"
  return "baseline + `unshare … setpriv …` (no host name, lo down)"
}

function ct_table(   i, j, n, v, hv) {
  printf "application containers: medians over %s round(s); ratios to the run of the same round\n", M["rounds"]
  for (i = 1; i <= nC; i++) {
    n = cns[i]
    printf "N = %s\n  %-10s %10s %9s %9s %12s %12s %12s\n", n, "", "cold ms", "CPU ms", "stall ms", "capinit KiB", "helper KiB", "netns ms"
    for (j = 1; j <= 5; j++) {
      v = CTV[j]
      printf "  %-10s %10s %9s %9s %12s %12s %12s\n", v, f1(S(cell(n SUBSEP v SUBSEP "cold"), "med", 1e6)),
        f1(S(cell(n SUBSEP v SUBSEP "cpu"), "med", 1e3)), f1(S(cell(n SUBSEP v SUBSEP "stall"), "med", 1e3)),
        f1(S(cell(n SUBSEP v SUBSEP "supmem"), "med", 1)), f1(S(cell(n SUBSEP v SUBSEP "helperuss"), "med", 1)),
        f1(S(cell(n SUBSEP v SUBSEP "teardown"), "med", 1e6))
    }
    printf "  ct/chain %s (CPU %s), ct/chainbare %s, ct/ctplain %s, ct/priv %s, ct/ctnonet %s; network namespace %s µs per service;\n",
      fr(S(cell(n SUBSEP "r_chain"), "med", 1)), fr(S(cell(n SUBSEP "rcpu_chain"), "med", 1)), fr(S(cell(n SUBSEP "r_chainbare"), "med", 1)), fr(S(cell(n SUBSEP "r_plain"), "med", 1)),
      fr(S(cell(n SUBSEP "r_priv"), "med", 1)), fr(S(cell(n SUBSEP "r_nonet"), "med", 1)), f1(S(cell(n SUBSEP "netns"), "med", 1000))
    printf "  CPU per service: container %s µs, network namespace %s µs; by process, contained: capinit %s, reaper %s, service %s µs\n",
      f1(S(cell(n SUBSEP "cpu_ctcost"), "med", 1000)), f1(S(cell(n SUBSEP "cpu_netns"), "med", 1000)),
      f1(S(cell(n SUBSEP "ct" SUBSEP "cpusup"), "med", 1000)), f1(S(cell(n SUBSEP "ct" SUBSEP "cpuhelpers"), "med", 1000)),
      f1(S(cell(n SUBSEP "ct" SUBSEP "cpusvc"), "med", 1000))
    printf "  capinit's memory per contained service: %s B more than a plain one (Rss + page tables; Pss: %s B)\n\n",
      f1(S(cell(n SUBSEP "memdiff"), "med", 1)), f1(S(cell(n SUBSEP "pssdiff"), "med", 1))
  }
  ct_targets()
  printf "targets, containers (N = %s):\n", CTN
  for (i = 1; i <= nCT; i++) printf "  %-12s %-40s %s [%s]\n", TCS[i], TCN[i], TCV[i], TCL[i]
}

function ct_markdown(   i, j, n, v) {
  ct_targets()
  print "## Application containers (issue 15)"
  print ""
  print "| target | measured | limit | status |"
  print "|---|---|---|---|"
  for (i = 1; i <= nCT; i++) print "| " TCN[i] " | " TCV[i] " | " TCL[i] " | **" TCS[i] "** |"
  print ""
  print "Every service of these runs is the privileged one (uid/gid 65534, noroot, cap_net_bind_service), but for"
  print "ctplain; the contained ones have `private-pids = yes`, `private-ipc = yes`, `hostname = bench` and"
  print "`network = none`: their own mount namespace (with a /proc of their own), PID, IPC, UTS and network namespaces,"
  print "lo up. The five runs of a round are side by side; ratios are taken in the round, then their median"
  print "(min–max). Memory is capinit's own process (Rss + page tables: the reapers share its pages, which lowers its"
  print "Pss without saving anything); a helper is every other process of the supervision tree, the services' own:"
  print "capinit's reapers (PID 1 of each service's namespace), or the baseline's waiting `unshare`; its Uss (private"
  print "pages) + page tables, median. The network namespaces' teardown is the time `netns_settle` waits after the run"
  print "(the kernel tears them down asynchronously), minus its own time after ctplain, which has none; stop is the time from"
  print "SIGKILL to the run's PID 1 until every process of the run is reaped (the other namespaces end with them)."
  if (M["cgroup"] == "yes") {
    print "Each run is in a cgroup of its own: CPU is the CPU time all its processes used from the supervisor's exec to"
    print "the last record (`cpu.stat`, exited processes included: the chain's `hostname` and `ip`); waiting for a CPU is the"
    print "time some of them were runnable while other work held the CPUs (`cpu.pressure`, \"some\"): the machine's load."
  }
  for (i = 1; i <= nC; i++) {
    n = cns[i]
    print ""
    print "### Containers, N = " n
    print ""
    print "| run | what | cold start ms | CPU ms | waiting for a CPU ms | capinit KiB (Rss + PTE) | helpers | helper KiB (Uss + PTE) | stop ms | network namespaces' teardown ms |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (j = 1; j <= 5; j++) {
      v = CTV[j]
      print "| " v " | " ct_what(v) " | " mmm(cell(n SUBSEP v SUBSEP "cold"), 1e6) " | " mmm(cell(n SUBSEP v SUBSEP "cpu"), 1e3) \
        " | " mmm(cell(n SUBSEP v SUBSEP "stall"), 1e3) " | " mmm(cell(n SUBSEP v SUBSEP "supmem"), 1) \
        " | " mmi(cell(n SUBSEP v SUBSEP "helpers")) " | " mmm(cell(n SUBSEP v SUBSEP "helperuss"), 1) \
        " | " mmm(cell(n SUBSEP v SUBSEP "kill"), 1e6) " | " (j == 1 ? "(" mmm(cell(n SUBSEP v SUBSEP "settle"), 1e6) ": netns_settle alone)" : mmm(cell(n SUBSEP v SUBSEP "teardown"), 1e6)) " |"
    }
    print ""
    print "- contained / chain: **" rmm(cell(n SUBSEP "r_chain")) "**; contained / bare chain: " rmm(cell(n SUBSEP "r_chainbare")) \
      "; chain / plain: " rmm(cell(n SUBSEP "r_chain_plain")) "; in CPU time, contained / chain: " rmm(cell(n SUBSEP "rcpu_chain")) \
      ", contained / bare chain: " rmm(cell(n SUBSEP "rcpu_chainbare")) "."
    print "- contained / plain: " rmm(cell(n SUBSEP "r_plain")) "; contained / privileged without container (the main rounds' run): " \
      rmm(cell(n SUBSEP "r_priv")) "; contained / contained without network namespace: " rmm(cell(n SUBSEP "r_nonet")) "."
    print "- per service: the container costs " mmm(cell(n SUBSEP "ctcost"), 1000) " µs of cold start ((contained − plain) / N), of which the"
    print "  network namespace " mmm(cell(n SUBSEP "netns"), 1000) " µs ((contained − without network) / N); in CPU time " \
      mmm(cell(n SUBSEP "cpu_ctcost"), 1000) " µs, of which the network namespace " mmm(cell(n SUBSEP "cpu_netns"), 1000) " µs;"
    print "  the network namespaces' teardown after the run " mmm(cell(n SUBSEP "ct" SUBSEP "teardown"), 1e3 * n) " µs per namespace."
    print "- CPU per service by process (schedstat, the processes alive at rest): plain: capinit " mmm(cell(n SUBSEP "ctplain" SUBSEP "cpusup"), 1000) \
      " µs, the service " mmm(cell(n SUBSEP "ctplain" SUBSEP "cpusvc"), 1000) " µs (its clone's work before exec included); contained: capinit " \
      mmm(cell(n SUBSEP "ct" SUBSEP "cpusup"), 1000) " µs, its reaper " mmm(cell(n SUBSEP "ct" SUBSEP "cpuhelpers"), 1000) " µs, the service " \
      mmm(cell(n SUBSEP "ct" SUBSEP "cpusvc"), 1000) " µs; chain: the waiting `unshare` " mmm(cell(n SUBSEP "chain" SUBSEP "cpuhelpers"), 1000) \
      " µs, the service " mmm(cell(n SUBSEP "chain" SUBSEP "cpusvc"), 1000) " µs (without `hostname` and `ip`, which have exited)."
    print "- capinit's memory per contained service: " mmm(cell(n SUBSEP "memdiff"), 1) " B more than per plain one (Rss + page tables);"
    print "  with Pss instead of Rss: " mmm(cell(n SUBSEP "pssdiff"), 1) " B. The " mmi(cell(n SUBSEP "ct" SUBSEP "helpers")) " reapers: " \
      mmm(cell(n SUBSEP "ct" SUBSEP "helperuss"), 1) " KiB each (Uss + page tables), " mmm(cell(n SUBSEP "ct" SUBSEP "helperpss"), 1) \
      " KiB together (Pss); the chain's waiting `unshare`: " mmm(cell(n SUBSEP "chain" SUBSEP "helperuss"), 1) " KiB each, " \
      mmm(cell(n SUBSEP "chain" SUBSEP "helperpss"), 1) " KiB together."
    print "- processes: ct " TPV[n, "ct"] "; chain " TPV[n, "chain"] "."
  }
  print ""
  print "Checked in every run of these, from /proc (tests/bench/nsrun.c), on every service for the namespaces and on one"
  print "for the rest:"
  print ""
  for (j = 2; j <= 5; j++) print "- " CTV[j] ": " CHKCT[CTV[j]]
  print ""
}

function cell(key) { return (key in L) ? L[key] : "" }

# ------------------------------------------------------------- the targets
# ok: 1 met, 0 missed, -1 inconclusive (the noise is larger than the value)
function target(name, value, limit, ok, id) {
  nT++
  TN[nT] = name; TV[nT] = value; TL[nT] = limit; TS[nT] = ok < 0 ? "inconclusive" : ok ? "met" : "missed"
}
function targets(   n, i, x, lim, sz, wmax, s) {
  n = ""
  for (i = 1; i <= nN; i++) if (ns[i] == 1000) n = 1000
  if (n == "") n = ns[nN]
  TNN = n
  x = stat(cell(n SUBSEP "plain" SUBSEP "capinit" SUBSEP "coldratio"), "med")
  target("cold start, N = " n, fr(x) "× baseline (s6 " fr(stat(cell(n SUBSEP "plain" SUBSEP "s6" SUBSEP "coldratio"), "med")) \
    "×, runit " fr(stat(cell(n SUBSEP "plain" SUBSEP "runit" SUBSEP "coldratio"), "med")) "×)", "≤ 1.3× baseline", x != "" && x <= 1.3)
  x = stat(cell(n SUBSEP "capinit" SUBSEP "rstratio"), "med")
  target("restart median, N = " n, fr(x) "× baseline (" f1(stat(RST[n, "capinit"], "med") / 1000) " µs vs " \
    f1(stat(RST[n, "baseline"], "med") / 1000) " µs; s6 " fr(stat(cell(n SUBSEP "s6" SUBSEP "rstratio"), "med")) \
    "×, runit " fr(stat(cell(n SUBSEP "runit" SUBSEP "rstratio"), "med")) "×)", "≤ 1.3× baseline", x != "" && x <= 1.3)
  x = stat(cell(n SUBSEP "capinit" SUBSEP "mem"), "med")
  target("supervision-tree memory, N = " n, f1(x) " KiB (" f1(x / n) " KiB per service; s6 " \
    f1(stat(cell(n SUBSEP "s6" SUBSEP "mem"), "med") / n) ", runit " f1(stat(cell(n SUBSEP "runit" SUBSEP "mem"), "med") / n) " KiB per service)",
    "≤ 1024 KiB", x != "" && x <= 1024)
  wmax = 0
  for (i = 1; i <= nN; i++) {
    s = stat(cell(ns[i] SUBSEP "capinit" SUBSEP "wake"), "max")
    if (s > wmax) wmax = s
  }
  target("idle wake-ups, every N", wmax " (most in any round, over " M["idle_ms"] / 1000 " s)", "0", wmax == 0)
  x = stat(cell(n SUBSEP "priv" SUBSEP "capinit" SUBSEP "coldratio"), "med")
  target("privileged cold start, N = " n, fr(x) "× baseline through setpriv", "≤ 0.5×", x != "" && x <= 0.5)
  x = stat(cell(n SUBSEP "privoverhead"), "med"); lim = stat(cell(n SUBSEP "seq"), "med")
  target("privilege overhead per service, N = " n, f1(x / 1000) " µs vs the bare sequence's " f1(lim / 1000) " µs (" fr(x / lim) "×)",
    "≤ 1.3× the sequence", x < 0 ? -1 : lim > 0 && x <= 1.3 * lim)
  sz = M["capinit_size"]
  target("static capinit size", sz " bytes", "≤ 200 KB (204800 bytes)", sz > 0 && sz <= 204800)
}

# ------------------------------------------------------------------ output
function table(   i, j, n, s, hdr) {
  printf "capinit benchmark (%s): medians over %s round(s), ratios (×) to the baseline of the same round\n", M["mode"], M["rounds"]
  printf "restart: %s SIGKILLs per run; idle: wake-ups and CPU of the supervision tree over %s s; priv: privileged variant\n\n", M["trials"], M["idle_ms"] / 1000
  for (i = 1; i <= nN; i++) {
    n = ns[i]
    printf "N = %s\n", n
    printf "  %-9s %10s %6s  %9s %9s %6s  %9s %7s  %5s %7s  %10s %6s\n", "", "cold ms", "×", "rst µs", "p90 µs", "×", "mem KiB", "KiB/svc", "wake", "CPU ms", "priv ms", "×"
    for (j = 1; j <= nS; j++) {
      s = sups[j]
      printf "  %-9s %10s %6s  %9s %9s %6s  %9s %7s  %5s %7s  %10s %6s\n", s,
        f1(S(cell(n SUBSEP "plain" SUBSEP s SUBSEP "cold"), "med", 1e6)),
        fr(S(cell(n SUBSEP "plain" SUBSEP s SUBSEP "coldratio"), "med", 1)),
        f1(S(RST[n, s], "med", 1000)), f1(S(RST[n, s], "p90", 1000)),
        fr(S(cell(n SUBSEP s SUBSEP "rstratio"), "med", 1)),
        f1(S(cell(n SUBSEP s SUBSEP "mem"), "med", 1)), f1(S(cell(n SUBSEP s SUBSEP "mem"), "med", n)),
        (cell(n SUBSEP s SUBSEP "wake") == "" ? "-" : S(cell(n SUBSEP s SUBSEP "wake"), "med", 1)), f1(S(cell(n SUBSEP s SUBSEP "cpu"), "med", 1e6)),
        f1(S(cell(n SUBSEP "priv" SUBSEP s SUBSEP "cold"), "med", 1e6)),
        fr(S(cell(n SUBSEP "priv" SUBSEP s SUBSEP "coldratio"), "med", 1))
    }
    printf "  privilege: capinit %s µs per service ((privileged - plain cold start) / N, %s pair(s)); bare sequence %s µs (%s calls; plain's %s µs)\n\n",
      f1(S(cell(n SUBSEP "privoverhead"), "med", 1000)), S(cell(n SUBSEP "privoverhead"), "n", 1), f1(S(cell(n SUBSEP "seq"), "med", 1000)),
      MI[n, 1, "micro_priv_calls"], f1(S(cell(n SUBSEP "seqplain"), "med", 1000))
  }
  if (nN) {
    targets()
    printf "targets (N = %s where it applies):\n", TNN
    for (i = 1; i <= nT; i++) printf "  %-12s %-40s %s [%s]\n", TS[i], TN[i], TV[i], TL[i]
  }
  if (nC) {
    printf "\n"
    ct_table()
  }
  if (nB) {
    printf "\nQEMU boot of the appliance (%s boot(s), %s, %s): median (min-max)\n", nB, toupper(M["boot_accel"]), M["boot_kernel"]
    printf "  capinit: all %s services ready %s ms after it started (its own clock, in the guest)\n",
      mmi(cell("boot" SUBSEP "services")), mmm(cell("boot" SUBSEP "ready"), 1)
    printf "  host wall time from QEMU's start to that line: %s s; poweroff to QEMU's exit: %s s\n",
      mmm(cell("boot" SUBSEP "wall"), 1e9), mmm(cell("boot" SUBSEP "off"), 1e9)
  }
}

function markdown(   i, j, n, s, v) {
  print "# Benchmarks: capinit, s6, runit and the physical limit"
  print ""
  print "Generated by `make bench` (tests/bench/run.sh) on " M["date"] "; do not edit by hand: rerun it."
  print "`make bench-quick` prints the same ratio tables for N = 10, 100, 1000 (containers: N = 100) in a minute or two" (nB ? ", without the QEMU boots." : ".")
  print ""
  print "## Machine and versions"
  print ""
  print "| | |"
  print "|---|---|"
  print "| CPU | " M["cpu"] " (" M["nproc"] " cores, `nproc`) |"
  print "| kernel | " M["kernel"] " |"
  print "| capinit | " M["capinit"] ", static, " M["capinit_size"] " bytes |"
  print "| s6 | " M["s6"] " (Debian), execline " M["execline"] " |"
  print "| runit | " M["runit"] " (Debian) |"
  print "| setpriv | util-linux " M["setpriv"] " (Debian) |"
  if (M["ctns"] != "")
    print "| containers' reference chain | `unshare` and `setpriv` of util-linux " M["setpriv"] ", `sh` dash " M["dash"] ", `hostname` " M["hostname"] ", `ip` iproute2 " M["iproute2"] " (Debian) |"
  print "| rounds | " M["rounds"] " + a warm-up; " M["trials"] " restarts per run; idle window " M["idle_ms"] / 1000 " s; " M["pairs"] " capinit plain/privileged pairs per round; microbenchmark " M["micro"] " iterations |"
  print "| load average | " M["load"] "; the run took " int(M["duration_s"] / 60) " min (other sessions share this machine) |"
  print ""
  if (nN) results()
  if (nC) ct_markdown()
  if (nB) boot_section()
  method()
}

function results(   i, j, n, s) {
  targets()
  print "## Targets (issue 8)"
  print ""
  print "| target | measured | limit | status |"
  print "|---|---|---|---|"
  for (i = 1; i <= nT; i++) print "| " TN[i] " | " TV[i] " | " TL[i] " | **" TS[i] "** |"
  print ""
  print "![cold start against N](bench-coldstart.svg)"
  print "![memory against N](bench-memory.svg)"
  print ""
  print "## Results"
  print ""
  print "Medians over the rounds, with min–max; × is the ratio to the baseline of the same round"
  print "(for the privileged variant: the baseline running every service through setpriv)."
  for (i = 1; i <= nN; i++) {
    n = ns[i]
    print ""
    print "### N = " n
    print ""
    print "| supervisor | cold start ms | × | restart median µs | p90 µs | × | memory KiB | per service KiB | processes | idle wake-ups | idle CPU ms | privileged cold start ms | × |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (j = 1; j <= nS; j++) {
      s = sups[j]
      print "| " s " | " mmm(cell(n SUBSEP "plain" SUBSEP s SUBSEP "cold"), 1e6) " | " rmm(cell(n SUBSEP "plain" SUBSEP s SUBSEP "coldratio")) \
        " | " f1(S(RST[n, s], "med", 1000)) " | " f1(S(RST[n, s], "p90", 1000)) " | " rmm(cell(n SUBSEP s SUBSEP "rstratio")) \
        " | " mmm(cell(n SUBSEP s SUBSEP "mem"), 1) " | " f1(S(cell(n SUBSEP s SUBSEP "mem"), "med", n)) " | " (TP[n, s] == "" ? "-" : TP[n, s]) \
        " | " mmi(cell(n SUBSEP s SUBSEP "wake")) " | " mmm(cell(n SUBSEP s SUBSEP "cpu"), 1e6) \
        " | " mmm(cell(n SUBSEP "priv" SUBSEP s SUBSEP "cold"), 1e6) " | " rmm(cell(n SUBSEP "priv" SUBSEP s SUBSEP "coldratio")) " |"
    }
    print ""
    print "Privilege: capinit's (privileged − plain cold start) / N is " mmm(cell(n SUBSEP "privoverhead"), 1000) \
      " µs per service (" S(cell(n SUBSEP "privoverhead"), "n", 1) " side-by-side pairs); the bare syscall sequence (" MI[n, 1, "micro_priv_calls"] " calls, fork + sequence + _exit − fork + _exit) costs " \
      mmm(cell(n SUBSEP "seq"), 1000) " µs; the plain service's part of it " mmm(cell(n SUBSEP "seqplain"), 1000) \
      " µs; fork + _exit + wait of the small microbenchmark process " mmm(cell(n SUBSEP "bare"), 1000) " µs."
    print ""
    print "Supervision tree (processes counted): " TD[n, "baseline"] "; " TD[n, "capinit"] "; " TD[n, "s6"] "; " TD[n, "runit"] "."
  }
  print ""
  print "Privileged state checked in every privileged run, on one service, from /proc/PID/status:"
  print ""
  for (j = 1; j <= nS; j++) print "- " sups[j] ": " substr(CHK[sups[j]], index(CHK[sups[j]], "pid="))
  print ""
}

function boot_section(   i, k, per, kern) {
  kern = M["boot_kernel"]
  if (kern ~ /^vmlinux/) kern = kern " (the package's vmlinuz uncompressed, booted through PVH)"
  print "## QEMU boot of the appliance"
  print ""
  print "The root-free appliance (`rootfs/` as `make image` builds it: " M["boot_image"] ") booted " nB " times in QEMU, one at a time,"
  print "after the supervisor runs, when the benchmark leaves the machine otherwise idle (load average " M["boot_load"] " before the"
  print "first boot; other sessions share this machine)."
  print ""
  print "| | median | min–max |"
  print "|---|---:|---:|"
  print "| boot-to-ready, capinit's clock (guest): ms from capinit's start to \"all N services ready\" | " \
    f1(S(cell("boot" SUBSEP "ready"), "med", 1)) " | " f1(S(cell("boot" SUBSEP "ready"), "min", 1)) "–" f1(S(cell("boot" SUBSEP "ready"), "max", 1)) " |"
  print "| QEMU wall time (host): s from QEMU's start to that line on the console | " \
    f1(S(cell("boot" SUBSEP "wall"), "med", 1e9)) " | " f1(S(cell("boot" SUBSEP "wall"), "min", 1e9)) "–" f1(S(cell("boot" SUBSEP "wall"), "max", 1e9)) " |"
  print "| clean power-off (host): s from `poweroff` typed on the console to QEMU's exit | " \
    f1(S(cell("boot" SUBSEP "off"), "med", 1e9)) " | " f1(S(cell("boot" SUBSEP "off"), "min", 1e9)) "–" f1(S(cell("boot" SUBSEP "off"), "max", 1e9)) " |"
  print "| boots | " nB " | |"
  print "| services ready | " mmi(cell("boot" SUBSEP "services")) " | |"
  print "| kernel | " kern ", Debian's `" M["boot_kernel_pkg"] "`, `" M["boot_append"] "` | |"
  print "| QEMU | " M["qemu"] ", " toupper(M["boot_accel"]) " (no KVM), " M["boot_mem_mb"] " MB | |"
  print ""
  per = ""
  for (i = 1; i <= nB; i++) {
    k = bk[i]
    per = per (i > 1 ? "; " : "") k ": " BT[k, "ready_ms"] " ms, " f1(BT[k, "wall_ready_ns"] / 1e9) " s, off " f1(BT[k, "poweroff_ns"] / 1e9) " s"
  }
  print "Each boot (capinit's ms, wall s to ready, power-off s): " per "."
  print ""
  print "Method: each boot is `rootfs/qemu.sh boot` (the command line of `make boot`) under `tests/bench/bootwatch.c`, which"
  print "takes CLOCK_MONOTONIC just before it starts QEMU and again when capinit's line \"capinit: all N services ready X ms"
  print "after capinit started\" arrives on the serial console (QEMU's stdout); X is capinit's own figure, from its start as"
  print "PID 1 by the guest's clock, so the wall time adds QEMU's start, the kernel's boot and the unpacking of the"
  print "initramfs. Once the console has been quiet for 300 ms (the shell at its prompt), bootwatch types `poweroff` and times"
  print "QEMU's exit (status 0: capinit stopped every service and powered off)."
  print ""
}

function method() {
  print "## Method"
  print ""
  print "- **Services.** N identical services, each `tests/bench/svc_record.c` (static musl): it takes a CLOCK_MONOTONIC"
  print "  timestamp first, writes `PID NS` to a FIFO in one write, then `pause()`s. The privileged variant runs every"
  print "  service as uid/gid 65534, no supplementary groups, securebits 0x2f (noroot, locked), bounding = inheritable ="
  print "  ambient = cap_net_bind_service: capinit with its keys (`user`, `group`, `groups =`, `mode = noroot`,"
  print "  `capabilities`), the others through `setpriv` in the service's argv."
  print "- **Supervisors.** capinit (`--container`, `log = none`); s6-svscan on a scan directory (`-c N`: 2.11 refuses more than 500 without it),"
  print "  run scripts in " (M["runscript"] == "sh" ? "`#!/bin/sh` (`exec ...`)" : "execline (`#!/usr/lib/execline/bin/execlineb -P`)") "; runsvdir with the same run scripts, above 1000 services"
  print "  a runsvdir of runsvdirs (runsvdir's compiled-in limit is 1000) of ⌈N/1000⌉ groups; the baseline"
  print "  (`tests/bench/baseline.c`): posix_spawn of every argv of a list (musl: a vfork-style clone), respawn on"
  print "  SIGCHLD, a pid table and nothing else. Configurations are generated before the runs and the state the"
  print "  peers leave in them (`supervise/`, `event/`) is removed before each run."
  print "- **A run** is one supervisor as PID 1 of a fresh `unshare --pid --fork --mount-proc`. `tests/bench/nsrun.c` starts"
  print "  as that PID 1, forks the collector, takes the start timestamp and execs the supervisor; every timestamp is"
  print "  taken inside the namespace. The collector:"
  print "  - **cold start**: from the supervisor's exec to the latest record of the N services;"
  print "  - **idle**: after 0.5 s of settling, voluntary + involuntary context switches (`/proc/PID/status`) and CPU"
  print "    time (`/proc/PID/schedstat`) of the supervision tree over the idle window; no service may restart in it;"
  print "  - **memory**: Pss (`/proc/PID/smaps_rollup`) + page tables (`VmPTE` of `/proc/PID/status`), summed over"
  print "    the supervision tree = every process of the namespace except the collector and the services (capinit"
  print "    alone; s6-svscan + N s6-supervise; runsvdir + N runsv, + the group runsv/runsvdir pairs above 1000)."
  print "    Kernel memory per process (task, kernel stack: ≥ 16 KiB each) is not included: it favours the peers;"
  print "  - **restart latency**: SIGKILL to the service that has run longest, once it has run ≥ 1.2 s (runsv"
  print "    delays a restart by 1 s after a shorter run, capinit by `restart-delay`); latency = the replacement's"
  print "    record − the timestamp taken just before kill(); 10 ms between trials. Debian's s6-supervise 2.11.3.2"
  print "    waits 1 s after *every* death, however long the service ran (strace: a 1 s `ppoll` timeout after"
  print "    `./finish`; newer s6 only throttles short runs): its restart latency is that second plus its own work;"
  print "  - **privileged state**: one service's `/proc/PID/status` must show CapInh = CapPrm = CapEff = CapBnd ="
  print "    CapAmb = 0000000000000400, Uid and Gid 65534 ×4 and no groups, under every supervisor, or the benchmark fails."
  print "- **Rounds** interleave the supervisors (baseline, capinit, s6, runit; then the privileged four; then"
  print "  " M["pairs"] " pairs of capinit plain and privileged cold starts side by side; then the microbenchmark); a"
  print "  warm-up round (cold start only) comes first for each N and is discarded. Ratios are to the baseline of"
  print "  the same round, then the median over rounds."
  print "- **Microbenchmark** (`tests/bench/privsyscalls.c`): fork a child that makes exactly the engine's syscalls"
  print "  for the privileged spec (keep-caps, setgroups, setresgid, setresuid, capget/capset, one PR_CAPBSET_DROP per"
  print "  other capability, capset, ambient clear + raise, securebits, capset; raw syscalls) and `_exit`s, against a"
  print "  child that just `_exit`s; medians of " M["micro"] " interleaved iterations. capinit's per-service privilege"
  print "  overhead is (privileged − plain cold start) / N of each side-by-side pair; its median over all pairs."
  print "- Raw results: `build/bench-results.txt` after a run."
  print ""
}

function plot_cold(   i, j, n, s) {
  printf "# N"
  for (j = 1; j <= nS; j++) printf " %s", sups[j]
  for (j = 1; j <= nS; j++) printf " %s-priv", sups[j]
  printf "\n"
  for (i = 1; i <= nN; i++) {
    n = ns[i]
    printf "%s", n
    for (j = 1; j <= nS; j++) printf " %s", stat(cell(n SUBSEP "plain" SUBSEP sups[j] SUBSEP "cold"), "med") / 1e6
    for (j = 1; j <= nS; j++) printf " %s", stat(cell(n SUBSEP "priv" SUBSEP sups[j] SUBSEP "cold"), "med") / 1e6
    printf "\n"
  }
}

function plot_mem(   i, j, n) {
  printf "# N"
  for (j = 1; j <= nS; j++) printf " %s", sups[j]
  printf "\n"
  for (i = 1; i <= nN; i++) {
    n = ns[i]
    printf "%s", n
    for (j = 1; j <= nS; j++) printf " %s", stat(cell(n SUBSEP sups[j] SUBSEP "mem"), "med")
    printf "\n"
  }
}

END {
  if (bad) exit 1
  prepare()
  if (bad) exit 1
  ct_prepare()
  if (bad) exit 1
  if (what == "table") table()
  else if (what == "markdown") markdown()
  else if (what == "plot_cold") plot_cold()
  else if (what == "plot_mem") plot_mem()
}
