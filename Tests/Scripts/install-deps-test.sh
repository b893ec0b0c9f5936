#!/usr/bin/env bash
# Proves `make deps` (scripts/install-deps.sh) on a machine that lacks everything: every check is
# made to answer "missing" (TRAWL_DEPS_ASSUME_MISSING=all) and apt-get, sudo and id are stubs on
# a PATH of their own, so nothing is installed. Fails unless each package is asked for by a
# well-formed apt-get command, as root (apt-get directly) and as another user (through sudo),
# and unless a user without sudo is told what to install. Also: an ImageMagick found under
# another name counts as present, and a program called `convert` that is not ImageMagick does not.
set -euo pipefail
cd "$(dirname "$0")/../.."
repository=$PWD

expected="chromium-headless-shell ffmpeg imagemagick libcurl4-openssl-dev libsqlite3-dev libxml2-dev openssl pkg-config postgresql shellcheck zlib1g-dev"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() {
  echo "not ok: $*" >&2
  failures=$((failures + 1))
}

# A PATH holding only the stubs and the few programs the script and make run.
stubs=$scratch/bin
mkdir -p "$stubs"
for program in sh env grep head cat make; do
  ln -s "$(command -v "$program")" "$stubs/$program"
done
cat > "$stubs/apt-get" <<'STUB'
#!/bin/sh
# Records how it was called, and fails as apt-get would on a call it cannot take.
echo "apt-get frontend=${DEBIAN_FRONTEND:-unset} sudo=${STUB_VIA_SUDO:-no} $*" >> "$STUB_LOG"
case $1 in
  update) [ "$#" -le 2 ] || exit 100 ;;
  install) ;;
  *) echo "E: Invalid operation $1" >&2; exit 100 ;;
esac
STUB
cat > "$stubs/id" <<'STUB'
#!/bin/sh
[ "$1" = -u ] && echo "$STUB_UID"
STUB
cat > "$stubs/sudo" <<'STUB'
#!/bin/sh
echo "sudo $*" >> "$STUB_LOG"
STUB_VIA_SUDO=yes exec "$@"
STUB
chmod +x "$stubs/apt-get" "$stubs/id" "$stubs/sudo"

# run NAME UID [ASSUME_MISSING]: `make deps` with the stubs; its output in $scratch/NAME.out,
# the stubs' record in $scratch/NAME.log, its exit status returned.
run() {
  local name=$1 uid=$2 missing=${3:-all}
  : > "$scratch/$name.log"
  local status=0
  env -i PATH="$stubs" HOME="$scratch" STUB_LOG="$scratch/$name.log" STUB_UID="$uid" \
    TRAWL_DEPS_ASSUME_MISSING="$missing" make -s -C "$repository" deps > "$scratch/$name.out" 2>&1 || status=$?
  return "$status"
}

# check_installs NAME VIA: every apt-get call well formed, one update before the installs, every
# expected package asked for exactly once, each through sudo or not as VIA says.
check_installs() {
  local name=$1 via=$2 asked="" updates=0 installs=0
  while read -r program frontend sudo verb rest; do
    [ "$program" = apt-get ] || continue
    [ "$frontend" = frontend=noninteractive ] || fail "$name: apt-get $verb ran with $frontend"
    [ "$sudo" = "sudo=$via" ] || fail "$name: apt-get $verb ran with $sudo, expected sudo=$via"
    case $verb in
      update)
        [ "$installs" = 0 ] || fail "$name: apt-get update after an install"
        updates=$((updates + 1))
        ;;
      install)
        installs=$((installs + 1))
        local yes=no word
        for word in $rest; do
          case $word in
            -y) yes=yes ;;
            -qq | --no-install-recommends) ;;
            -*) fail "$name: apt-get install with an unknown option $word" ;;
            *)
              [[ $word =~ ^[a-z0-9][a-z0-9.+-]+$ ]] || fail "$name: '$word' is not a package name"
              asked="$asked $word"
              ;;
          esac
        done
        [ "$yes" = yes ] || fail "$name: apt-get install without -y would wait for an answer: $rest"
        case " $rest " in
          *" chromium-headless-shell "* | *" ffmpeg "*)
            [[ " $rest " == *" --no-install-recommends "* ]] || fail "$name: $rest installed with its recommended packages"
            ;;
        esac
        ;;
      *) fail "$name: apt-get $verb" ;;
    esac
  done < "$scratch/$name.log"
  [ "$updates" = 1 ] || fail "$name: apt-get update ran $updates times"
  local sorted
  sorted=$(echo "$asked" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
  [ "$sorted" = "$expected " ] || fail "$name: asked for [$sorted], expected [$expected ]"
}

# As root: apt-get directly.
if run root 0; then check_installs root no; else fail "root: make deps exited $?: $(cat "$scratch/root.out")"; fi
if grep -q '^sudo ' "$scratch/root.log"; then fail "root: sudo was used"; fi

# As another user with sudo: every apt-get through it.
if run user 1000; then check_installs user yes; else fail "user: make deps exited $?: $(cat "$scratch/user.out")"; fi

# As another user without sudo: nothing runs, and the message names what to install.
rm "$stubs/sudo"
if run nosudo 1000; then fail "nosudo: make deps succeeded without installing anything"; fi
[ ! -s "$scratch/nosudo.log" ] || fail "nosudo: apt-get ran: $(cat "$scratch/nosudo.log")"
for package in $expected; do
  grep -q -- "$package" "$scratch/nosudo.out" || fail "nosudo: the message does not name $package: $(cat "$scratch/nosudo.out")"
done

# ImageMagick under another name. The other checks answer for real here; only the ImageMagick
# request is looked at. `magick` (ImageMagick 7) counts as present.
printf '#!/bin/sh\necho "Version: ImageMagick 7.1.1-43 Q16-HDRI x86_64 https://imagemagick.org"\n' > "$stubs/magick"
chmod +x "$stubs/magick"
run magick 0 none || true
if grep -q 'install.* imagemagick' "$scratch/magick.log"; then fail "magick: an ImageMagick 7 installed as magick was not seen"; fi
rm "$stubs/magick"
# A `convert` that is ImageMagick 6 counts; one that only stands in for it does not.
printf '#!/bin/sh\necho "Version: ImageMagick 6.9.11-60 Q16 x86_64 2021-01-25 https://imagemagick.org"\n' > "$stubs/convert"
chmod +x "$stubs/convert"
run convert6 0 none || true
if grep -q 'install.* imagemagick' "$scratch/convert6.log"; then fail "convert6: ImageMagick 6 installed as convert was not seen"; fi
printf '#!/bin/sh\necho "convert: ImageMagick is not installed here"\n' > "$stubs/convert"
run standin 0 none || true
grep -q 'install.* imagemagick' "$scratch/standin.log" || fail "standin: a convert that is not ImageMagick was taken for it"

if [ "$failures" -gt 0 ]; then
  echo "install-deps: $failures failed" >&2
  exit 1
fi
echo "install-deps: every package asked for by a well-formed apt-get (as root, through sudo), a user without sudo told what to install, ImageMagick found by any name"
