#!/bin/sh
# tests/peers/fetch.sh BUILDDIR -- the peers' own test suites, as Debian
# ships them: the source packages dumb-init and tini, unpacked by
# `apt-get source` into BUILDDIR/peers/ (never into the repository), and
# the Debian packages their suites need (mk/deps.sh peers).  A second run
# downloads nothing: each source package unpacked is kept, and marked by
# BUILDDIR/peers/NAME.dir, the name of its directory.
# apt-get source needs deb-src lines: when apt knows no source of dumb-init,
# this writes, as root, the new file /etc/apt/sources.list.d/capinit-src.list
# with one deb-src line for each deb line apt has (same URI, suites,
# components, signed-by), then runs apt-get update (mk/apt-update.sh).
# No existing file of apt's is changed.
set -eu
B=${1:-build}
here=$(dirname "$0")
sh "$here/../../mk/deps.sh" peers
dir=$B/peers
mkdir -p "$dir"

# every deb line of apt's enabled files, as deb-src lines (one-line format)
deb_src_lines() {
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    [ "$f" != /etc/apt/sources.list.d/capinit-src.list ] || continue
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822 stanzas: Types, URIs, Suites, Components, Signed-By
    awk '
      function flush(  i, j, k, nu, ns, u, s, opt) {
        if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "") {
          opt = signed != "" ? "[signed-by=" signed "] " : ""
          nu = split(uris, u, " "); ns = split(suites, s, " ")
          for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
            print "deb-src " opt u[i] " " s[j] (comps != "" ? " " comps : "")
        }
        types = uris = suites = comps = signed = enabled = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      { key = tolower($1); sub(/^[^:]*:[[:space:]]*/, ""); v = $0 }
      key == "types:" { types = v } key == "uris:" { uris = v }
      key == "suites:" { suites = v } key == "components:" { comps = v }
      key == "signed-by:" { signed = v } key == "enabled:" { enabled = tolower(v) }
      END { flush() }' "$f"
  done
}

has_source() { apt-cache showsrc "$1" 2>/dev/null | grep -q '^Package:'; }

fetch() { # NAME: unpacked into $dir, unless it already is
  name=$1
  if [ -f "$dir/$name.dir" ] && [ -d "$dir/$(cat "$dir/$name.dir")" ]; then
    return 0
  fi
  if ! has_source "$name"; then
    if [ "$(id -u)" != 0 ]; then
      echo "tests/peers/fetch.sh: fatal: apt knows no source package $name: add deb-src lines (as root, this script writes /etc/apt/sources.list.d/capinit-src.list)" >&2
      exit 1
    fi
    list=/etc/apt/sources.list.d/capinit-src.list
    echo "tests/peers/fetch.sh: writing $list (deb-src of apt's deb lines) and updating apt's lists"
    deb_src_lines | sort -u >"$list.tmp"
    [ -s "$list.tmp" ] || { rm -f "$list.tmp"; echo "tests/peers/fetch.sh: fatal: no deb line found in apt's sources" >&2; exit 1; }
    mv "$list.tmp" "$list"
    sh "$here/../../mk/apt-update.sh"
    has_source "$name" || { echo "tests/peers/fetch.sh: fatal: still no source package $name after apt-get update" >&2; exit 1; }
  fi
  # downloaded into a directory of its own, then unpacked by dpkg-source.
  # A mirror that lacks the Debian part (NAME_VERSION.debian.tar.*: seen
  # as a 404 while the .dsc and the upstream tarball were served) still
  # gives the upstream tree, which holds the suites: then that tree is
  # unpacked alone, and said.
  tmp=$dir/.fetch-$name
  mkdir -p "$tmp"
  if ! (cd "$tmp" && apt-get source -q --download-only "$name" >../"$name.log" 2>&1); then
    orig=$(cd "$tmp" && ls "$name"_*.orig.tar.* 2>/dev/null | head -n 1)
    if [ -z "$orig" ] || ! grep -q 'debian\.tar\..*404' "$dir/$name.log"; then
      cat "$dir/$name.log" >&2
      echo "tests/peers/fetch.sh: fatal: apt-get source $name failed" >&2
      exit 1
    fi
    echo "tests/peers/fetch.sh: $name: the mirror lacks the Debian part ($(grep -o "$name"'_[^ ]*debian\.tar\.[a-z]*' "$dir/$name.log" | head -n 1)): unpacking $orig alone"
    (cd "$tmp" && tar -xf "$orig")
  else
    (cd "$tmp" && dpkg-source -x "$name"_*.dsc >>../"$name.log" 2>&1) || {
      cat "$dir/$name.log" >&2
      echo "tests/peers/fetch.sh: fatal: dpkg-source -x $name failed" >&2
      exit 1
    }
  fi
  src=$(cd "$tmp" && for d in "$name"-*/; do [ -d "$d" ] && echo "${d%/}"; done | head -n 1)
  [ -n "$src" ] || { echo "tests/peers/fetch.sh: fatal: apt-get source $name unpacked no directory" >&2; exit 1; }
  rm -rf "${dir:?}/$src"
  mv "$tmp/$src" "$dir/$src"
  rm -rf "$tmp"
  echo "$src" >"$dir/$name.dir"
  echo "tests/peers/fetch.sh: $name: $dir/$src"
}

fetch dumb-init
fetch tini
