#!/bin/sh
# Installs what building and testing Trawl needs, with apt, when it is missing (`make deps`):
# the C libraries' headers, pkg-config and OpenSSL, PostgreSQL's server (the shared queue's
# tests start throwaway clusters), Chromium's headless shell (the browser loader), ffmpeg and
# ImageMagick (the media readers' tests make real files with them) and shellcheck (the tests of
# the repository's shell scripts). A part already present is left alone.
#
# As root apt-get runs directly, otherwise through sudo. Each part is checked by what the build
# or the tests use of it (a header, a program), so a part installed some other way counts.
#
#   scripts/install-deps.sh
#
# TRAWL_DEPS_ASSUME_MISSING=all (or a list of package names) makes those checks answer "missing",
# so the install commands can be proved on a machine that has everything (Tests/Scripts/).
set -eu

assume_missing=${TRAWL_DEPS_ASSUME_MISSING:-}

# present PACKAGE COMMAND...: runs the check unless PACKAGE is assumed missing.
present() {
  package=$1
  shift
  case " $assume_missing " in
    *" all "* | *" $package "*) return 1 ;;
  esac
  "$@"
}

any_file() {
  for file in "$@"; do
    [ -f "$file" ] && return 0
  done
  return 1
}

has_program() {
  command -v "$1" >/dev/null 2>&1
}

has_postgres_server() {
  for pg_ctl in /usr/lib/postgresql/*/bin/pg_ctl; do
    [ -x "$pg_ctl" ] && return 0
  done
  return 1
}

# ImageMagick under any of its names: `magick` (version 7), `convert` or Debian's
# `convert-im6.q16`. A program of that name that is not ImageMagick does not count: its first
# line of -version must name ImageMagick's version.
has_imagemagick() {
  for name in magick convert-im6.q16 convert; do
    has_program "$name" || continue
    if "$name" -version 2>/dev/null | head -n 1 | grep -q '^Version: ImageMagick '; then
      return 0
    fi
  done
  return 1
}

# Three groups, each one apt-get install: Chromium and the media tools without their
# recommended packages (with them Chromium pulls ~130 packages and upgrades systemd).
libraries=""
present libcurl4-openssl-dev any_file /usr/include/x86_64-linux-gnu/curl/curl.h /usr/include/aarch64-linux-gnu/curl/curl.h /usr/include/curl/curl.h ||
  libraries="$libraries libcurl4-openssl-dev"
present libxml2-dev any_file /usr/include/libxml2/libxml/HTMLparser.h || libraries="$libraries libxml2-dev"
present zlib1g-dev any_file /usr/include/zlib.h || libraries="$libraries zlib1g-dev"
present libsqlite3-dev any_file /usr/include/sqlite3.h || libraries="$libraries libsqlite3-dev"
present pkg-config has_program pkg-config || libraries="$libraries pkg-config"
present openssl has_program openssl || libraries="$libraries openssl"
present postgresql has_postgres_server || libraries="$libraries postgresql"
present shellcheck has_program shellcheck || libraries="$libraries shellcheck"

browser=""
present chromium-headless-shell test -x /usr/lib/chromium/chromium-headless-shell || browser="chromium-headless-shell"

media=""
present ffmpeg has_program ffmpeg || media="$media ffmpeg"
present imagemagick has_imagemagick || media="$media imagemagick"

if [ -z "$libraries$browser$media" ]; then
  exit 0
fi

if [ "$(id -u)" = 0 ]; then
  run_as_root() { "$@"; }
elif has_program sudo; then
  run_as_root() { sudo "$@"; }
else
  echo "install-deps: not root and no sudo; install these with apt-get as root:$libraries $browser$media" >&2
  exit 1
fi

# `env` sets the variable for apt-get itself: an assignment written after `sudo`'s place would be
# read as a command when that place is empty, as it is for root.
apt_install() {
  run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

echo "installing:$libraries $browser$media"
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# Word splitting is wanted below: each list holds package names, separated by spaces.
# shellcheck disable=SC2086
if [ -n "$libraries" ]; then apt_install $libraries; fi
if [ -n "$browser" ]; then apt_install --no-install-recommends "$browser"; fi
# shellcheck disable=SC2086
if [ -n "$media" ]; then apt_install --no-install-recommends $media; fi
